// Label and field selectors as the API server reads them (`app=x,tier!=y,env in (a,b),!legacy`;
// fields: `spec.nodeName=n,metadata.name!=x`).
type Obj = Record<string, unknown>;
type Req = { key: string; op: "=" | "!=" | "in" | "notin" | "exists" | "!exists"; values: string[] };

export class SelectorError extends Error {}

function splitTop(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of s) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      parts.push(cur);
      cur = "";
    } else cur += ch;
  }
  if (cur.trim()) parts.push(cur);
  return parts.map((p) => p.trim()).filter(Boolean);
}

export function parseLabelSelector(s: string | null | undefined): Req[] {
  if (!s) return [];
  return splitTop(s).map((p) => {
    let m = /^(!)?\s*([A-Za-z0-9_./-]+)$/.exec(p);
    if (m) return { key: m[2] ?? "", op: m[1] ? "!exists" : "exists", values: [] };
    m = /^([A-Za-z0-9_./-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(p);
    if (m) return { key: m[1] ?? "", op: m[2] as "in" | "notin", values: (m[3] ?? "").split(",").map((v) => v.trim()) };
    m = /^([A-Za-z0-9_./-]+)\s*(==|=|!=)\s*([A-Za-z0-9_./-]*)$/.exec(p);
    if (m) return { key: m[1] ?? "", op: m[2] === "!=" ? "!=" : "=", values: [m[3] ?? ""] };
    throw new SelectorError(`unable to parse requirement: ${p}`);
  });
}

function test(req: Req, get: (k: string) => string | undefined): boolean {
  const v = get(req.key);
  switch (req.op) {
    case "=":
      return v === req.values[0];
    case "!=":
      return v !== req.values[0];
    case "in":
      return v !== undefined && req.values.includes(v);
    case "notin":
      return v === undefined || !req.values.includes(v);
    case "exists":
      return v !== undefined;
    case "!exists":
      return v === undefined;
  }
}

export function matchLabels(reqs: Req[], labels: Record<string, string> | undefined): boolean {
  return reqs.every((r) => test(r, (k) => labels?.[k]));
}

/** Field selectors: only `=`, `==` and `!=` on dotted paths; an absent field reads as "". */
export function parseFieldSelector(s: string | null | undefined): Req[] {
  if (!s) return [];
  return splitTop(s).map((p) => {
    const m = /^([A-Za-z0-9_.-]+)\s*(==|=|!=)\s*(.*)$/.exec(p);
    if (!m) throw new SelectorError(`invalid field selector: ${p}`);
    return { key: m[1] ?? "", op: m[2] === "!=" ? "!=" : "=", values: [m[3] ?? ""] };
  });
}

export function fieldValue(obj: Obj, path: string): string {
  let cur: unknown = obj;
  for (const part of path.split(".")) {
    if (cur === null || typeof cur !== "object") return "";
    cur = (cur as Obj)[part];
  }
  return cur === undefined || cur === null ? "" : String(cur);
}

export function matchFields(reqs: Req[], obj: Obj): boolean {
  return reqs.every((r) => test(r, (k) => fieldValue(obj, k)));
}

/** The LabelSelector object form (matchLabels + matchExpressions), as in workloads and PDBs. */
export function matchSelectorObject(sel: { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] } | undefined, labels: Record<string, string> | undefined): boolean {
  if (!sel) return false;
  const reqs: Req[] = Object.entries(sel.matchLabels ?? {}).map(([key, v]) => ({ key, op: "=", values: [v] }));
  for (const e of sel.matchExpressions ?? []) {
    const op = ({ In: "in", NotIn: "notin", Exists: "exists", DoesNotExist: "!exists" } as const)[e.operator as "In"];
    if (op) reqs.push({ key: e.key, op, values: e.values ?? [] });
  }
  if (reqs.length === 0) return true;
  return matchLabels(reqs, labels);
}
