// Command-line flags the way Kubernetes components (spf13/pflag) read them: `--name=value`,
// `--name value` for flags that take a value, `--flag` for booleans, and `_` spelled like `-`
// (`--cluster_dns` is `--cluster-dns`, pflag's normalisation in the kubelet).

export type FlagSpec = Record<string, "string" | "bool" | "list">;
export type ParsedFlags = { values: Map<string, string>; lists: Map<string, string[]>; unknown: string[]; args: string[] };

export class FlagError extends Error {}

export function normaliseFlag(name: string): string {
  return name.replace(/_/g, "-");
}

/**
 * Parses argv against `spec`. Unknown flags go to `unknown` when `strict` is false (the API server
 * stand-in logs and ignores them), or throw `unknown flag: --x` like pflag when it is true (the kubelet).
 */
export function parseFlags(argv: readonly string[], spec: FlagSpec, strict: boolean): ParsedFlags {
  const out: ParsedFlags = { values: new Map(), lists: new Map(), unknown: [], args: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? "";
    if (!a.startsWith("-") || a === "-" ) {
      out.args.push(a);
      continue;
    }
    if (a === "--") {
      out.args.push(...argv.slice(i + 1));
      break;
    }
    const body = a.replace(/^--?/, "");
    const eq = body.indexOf("=");
    const rawName = eq >= 0 ? body.slice(0, eq) : body;
    const name = normaliseFlag(rawName);
    const kind = spec[name];
    if (!kind) {
      if (strict) throw new FlagError(`unknown flag: --${rawName}`);
      out.unknown.push(a);
      // An unknown flag's value may follow as the next word; take it along when it is not a flag.
      if (eq < 0 && argv[i + 1] !== undefined && !(argv[i + 1] ?? "").startsWith("-")) out.unknown.push(argv[++i] ?? "");
      continue;
    }
    let value: string;
    if (eq >= 0) value = body.slice(eq + 1);
    else if (kind === "bool") value = "true";
    else {
      const next = argv[i + 1];
      if (next === undefined) throw new FlagError(`flag needs an argument: --${rawName}`);
      value = next;
      i++;
    }
    if (kind === "bool" && !["true", "false", "1", "0", "t", "f", "TRUE", "FALSE", "True", "False"].includes(value))
      throw new FlagError(`invalid argument "${value}" for "--${rawName}" flag: strconv.ParseBool: parsing "${value}": invalid syntax`);
    if (kind === "list") out.lists.set(name, [...(out.lists.get(name) ?? []), ...value.split(",").filter(Boolean)]);
    out.values.set(name, value);
  }
  return out;
}

export const flagBool = (f: ParsedFlags, name: string, def = false): boolean => {
  const v = f.values.get(name);
  return v === undefined ? def : ["true", "1", "t", "TRUE", "True"].includes(v);
};
