// The three patch types kubectl and controllers send: JSON merge patch (RFC 7386), JSON patch
// (RFC 6902) and strategic merge patch, which the stand-in applies as a merge patch that merges lists
// of named items (containers, env, volumes, ports by name) by name and drops the `$…` directives.
type J = unknown;
type Obj = Record<string, J>;
const isObj = (v: J): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

export class PatchError extends Error {}

export function mergePatch(target: J, patch: J): J {
  if (!isObj(patch)) return patch;
  const out: Obj = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function namedList(v: J): v is Obj[] {
  return Array.isArray(v) && v.every((x) => isObj(x) && typeof x.name === "string");
}

export function strategicMergePatch(target: J, patch: J): J {
  if (!isObj(patch)) return patch;
  if (patch.$patch === "replace") {
    const { $patch: _, ...rest } = patch;
    return stripDirectives(rest);
  }
  if (patch.$patch === "delete") return undefined;
  const out: Obj = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith("$setElementOrder/") || k.startsWith("$deleteFromPrimitiveList/") || k === "$retainKeys" || k === "$patch") continue;
    if (v === null) {
      delete out[k];
      continue;
    }
    const cur = out[k];
    if (namedList(v) && (cur === undefined || namedList(cur))) {
      const order = patch[`$setElementOrder/${k}`];
      const merged = new Map<string, J>((cur ?? []).map((x) => [String(x.name), x]));
      for (const item of v) {
        const name = String(item.name);
        if (item.$patch === "delete") merged.delete(name);
        else merged.set(name, strategicMergePatch(merged.get(name), item));
      }
      let names = [...merged.keys()];
      if (Array.isArray(order)) {
        const wanted = order.map((o) => (isObj(o) ? String(o.name) : "")).filter((n) => merged.has(n));
        names = [...wanted, ...names.filter((n) => !wanted.includes(n))];
      }
      out[k] = names.map((n) => merged.get(n));
    } else {
      out[k] = strategicMergePatch(cur, v);
    }
    if (out[k] === undefined) delete out[k];
  }
  return out;
}

function stripDirectives(v: J): J {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (!isObj(v)) return v;
  return Object.fromEntries(Object.entries(v).filter(([k]) => !k.startsWith("$")).map(([k, x]) => [k, stripDirectives(x)]));
}

const unescape = (s: string) => s.replace(/~1/g, "/").replace(/~0/g, "~");

function pointer(path: string): string[] {
  if (path === "") return [];
  if (!path.startsWith("/")) throw new PatchError(`invalid JSON pointer "${path}"`);
  return path.slice(1).split("/").map(unescape);
}

function getAt(doc: J, parts: string[]): J {
  let cur = doc;
  for (const p of parts) {
    if (Array.isArray(cur)) cur = cur[Number(p)];
    else if (isObj(cur)) cur = cur[p];
    else return undefined;
  }
  return cur;
}

export function jsonPatch(doc: J, ops: J): J {
  if (!Array.isArray(ops)) throw new PatchError("a JSON patch must be an array of operations");
  let root = structuredClone(doc);
  for (const op of ops as Obj[]) {
    const parts = pointer(String(op.path ?? ""));
    const parentParts = parts.slice(0, -1);
    const last = parts[parts.length - 1] ?? "";
    const parent = () => {
      const p = getAt(root, parentParts);
      if (!isObj(p) && !Array.isArray(p)) throw new PatchError(`doc is missing path: "${op.path}"`);
      return p;
    };
    const remove = (): J => {
      const p = parent();
      if (Array.isArray(p)) return p.splice(Number(last), 1)[0];
      if (!(last in p)) throw new PatchError(`unable to remove nonexistent key: ${last}`);
      const v = p[last];
      delete p[last];
      return v;
    };
    const add = (value: J) => {
      if (parts.length === 0) {
        root = value;
        return;
      }
      const p = parent();
      if (Array.isArray(p)) {
        if (last === "-") p.push(value);
        else p.splice(Number(last), 0, value);
      } else p[last] = value;
    };
    switch (op.op) {
      case "add":
        add(structuredClone(op.value));
        break;
      case "remove":
        remove();
        break;
      case "replace": {
        if (parts.length === 0) root = structuredClone(op.value);
        else {
          const p = parent();
          if (Array.isArray(p)) p[Number(last)] = structuredClone(op.value);
          else {
            if (!(last in p)) throw new PatchError(`replace operation does not apply: doc is missing key: ${op.path}`);
            p[last] = structuredClone(op.value);
          }
        }
        break;
      }
      case "move": {
        const fromParts = pointer(String(op.from ?? ""));
        const v = getAt(root, fromParts);
        const saved = { parts: [...parts] };
        const tmpOps = [{ op: "remove", path: String(op.from) }];
        root = jsonPatch(root, tmpOps);
        parts.splice(0, parts.length, ...saved.parts);
        add(v);
        break;
      }
      case "copy":
        add(structuredClone(getAt(root, pointer(String(op.from ?? "")))));
        break;
      case "test":
        if (JSON.stringify(getAt(root, parts)) !== JSON.stringify(op.value)) throw new PatchError(`testing value ${op.path} failed`);
        break;
      default:
        throw new PatchError(`unknown JSON patch operation ${String(op.op)}`);
    }
  }
  return root;
}
