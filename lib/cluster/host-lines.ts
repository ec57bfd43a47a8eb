// Parses hosts pasted one per line (`address[:port] role [user] [labels]`) or a CSV export
// (header: name,address,port,role,user,labels). Browser-safe; the wizard uses it.
import { isIPv4, isIPv6, looksLikeIPv4 } from "./net-syntax";

export type ParsedHost = {
  name: string;
  address: string;
  port?: number;
  role: string;
  user?: string;
  labels?: Record<string, string>;
};

export type LineProblem = { line: number; message: string };

/** "k=v,k2=v2" → [key, value] pairs, trimmed; a pair without "=" has no value. */
export function splitLabelPairs(text: string): [string, string | undefined][] {
  return text
    .split(",")
    .filter((p) => p.trim())
    .map((pair) => {
      const eq = pair.indexOf("=");
      return eq < 0 ? [pair.trim(), undefined] : [pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()];
    });
}

function parseLabels(text: string): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const [key, value] of splitLabelPairs(text)) {
    if (!key || value === undefined) return `label "${key.slice(0, 40)}" must look like key=value`;
    out[key] = value;
  }
  return out;
}

/** Splits "addr:port", "[v6]:port" or a bare address. */
function splitAddress(text: string): { address: string; port?: number } | string {
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (v6) return { address: v6[1] ?? "", port: v6[2] ? Number(v6[2]) : undefined };
  if (isIPv6(text)) return { address: text };
  const colon = text.lastIndexOf(":");
  if (colon < 0) return { address: text };
  const port = text.slice(colon + 1);
  if (!/^\d{1,5}$/.test(port)) return `"${text.slice(0, 60)}": the port after ':' must be a number`;
  return { address: text.slice(0, colon), port: Number(port) };
}

/** A readable default name: the first DNS label, or role-N for IP addresses. */
function defaultName(address: string, role: string, taken: Set<string>): string {
  const first = /^[a-z]/i.test(address) ? address.split(".")[0]?.toLowerCase() : undefined;
  if (first && !taken.has(first)) return first;
  for (let n = 1; ; n++) if (!taken.has(`${role}-${n}`)) return `${role}-${n}`;
}

/**
 * Hosts from pasted lines. Lines naming an address already in `existingAddresses` (or earlier in the
 * paste) are problems, not duplicates: pasting the same text twice adds nothing twice.
 */
export function parseHostLines(text: string, existingNames: string[] = [], existingAddresses: string[] = []): { hosts: ParsedHost[]; problems: LineProblem[] } {
  const hosts: ParsedHost[] = [];
  const problems: LineProblem[] = [];
  const taken = new Set(existingNames);
  const seen = new Set(existingAddresses.map((a) => a.toLowerCase()));
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/#.*$/, "").trim();
    if (!line) return;
    const [addr, role, user, labelText, ...extra] = line.split(/\s+/);
    if (!addr || !role) return problems.push({ line: i + 1, message: "needs at least an address and a role (master or worker)" });
    if (extra.length) return problems.push({ line: i + 1, message: "has too many fields; expected: address[:port] role [user] [key=value,…]" });
    if (role !== "master" && role !== "worker") return problems.push({ line: i + 1, message: `role "${role.slice(0, 20)}" must be master or worker` });
    const a = splitAddress(addr);
    if (typeof a === "string") return problems.push({ line: i + 1, message: a });
    if (looksLikeIPv4(a.address) && !isIPv4(a.address)) return problems.push({ line: i + 1, message: `${a.address.slice(0, 40)} is not a valid IPv4 address` });
    if (seen.has(a.address.toLowerCase())) return problems.push({ line: i + 1, message: `${a.address.slice(0, 60)} is already in the list` });
    seen.add(a.address.toLowerCase());
    let labels: Record<string, string> | undefined;
    // A third field with '=' is labels, not a user: "10.0.0.5 worker zone=a" is unambiguous.
    let u = user;
    let l = labelText;
    if (u?.includes("=") && l === undefined) [u, l] = [undefined, u];
    if (l !== undefined) {
      const parsed = parseLabels(l);
      if (typeof parsed === "string") return problems.push({ line: i + 1, message: parsed });
      labels = parsed;
    }
    const name = defaultName(a.address, role, taken);
    taken.add(name);
    hosts.push({ name, address: a.address, ...(a.port !== undefined ? { port: a.port } : {}), role, ...(u ? { user: u } : {}), ...(labels ? { labels } : {}) });
  });
  return { hosts, problems };
}

/** Minimal RFC 4180 CSV: quoted fields, doubled quotes, commas and newlines inside quotes. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") row.push(field), (field = "");
    else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      row.push(field), rows.push(row), (row = []), (field = "");
    } else field += ch;
  }
  if (field !== "" || row.length) row.push(field), rows.push(row);
  return rows.filter((r) => r.some((f) => f.trim() !== ""));
}

export function parseHostCsv(text: string, existingNames: string[] = []): { hosts: ParsedHost[]; problems: LineProblem[] } {
  const rows = parseCsv(text);
  const header = rows[0]?.map((h) => h.trim().toLowerCase()) ?? [];
  const problems: LineProblem[] = [];
  if (!header.includes("address") || !header.includes("role"))
    return { hosts: [], problems: [{ line: 1, message: "the first row must be a header with at least address and role (also: name, port, user, labels)" }] };
  const col = (r: string[], name: string) => {
    const idx = header.indexOf(name);
    const v = idx >= 0 ? r[idx]?.trim() : undefined;
    return v === "" ? undefined : v;
  };
  const taken = new Set(existingNames);
  const hosts: ParsedHost[] = [];
  rows.slice(1).forEach((r, i) => {
    const line = i + 2;
    const address = col(r, "address");
    const role = col(r, "role");
    if (!address || !role) return problems.push({ line, message: "needs an address and a role" });
    const portText = col(r, "port");
    if (portText !== undefined && !/^\d{1,5}$/.test(portText)) return problems.push({ line, message: "port must be a number" });
    const labelText = col(r, "labels");
    const labels = labelText ? parseLabels(labelText.replace(/;/g, ",")) : undefined;
    if (typeof labels === "string") return problems.push({ line, message: labels });
    const name = col(r, "name") ?? defaultName(address, role, taken);
    taken.add(name);
    const user = col(r, "user");
    hosts.push({ name, address, role, ...(portText ? { port: Number(portText) } : {}), ...(user ? { user } : {}), ...(labels ? { labels } : {}) });
  });
  return { hosts, problems };
}
