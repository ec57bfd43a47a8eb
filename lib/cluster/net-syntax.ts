// Address syntax checks that run the same in the browser and on the server (no node:net).

const octet = "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
const ipv4Pattern = new RegExp(`^${octet}(\\.${octet}){3}$`);

export function isIPv4(s: string): boolean {
  return ipv4Pattern.test(s);
}

export function isIPv6(s: string): boolean {
  if (s.length > 45 || !/^[0-9a-fA-F:.]+$/.test(s) || !s.includes(":")) return false;
  const double = s.split("::");
  if (double.length > 2) return false;
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  let parts = [...groups(double[0] ?? ""), ...groups(double[1] ?? "")];
  let width = 8;
  const last = parts[parts.length - 1];
  if (last !== undefined && last.includes(".")) {
    if (!isIPv4(last)) return false;
    parts = parts.slice(0, -1);
    width = 6;
  }
  if (!parts.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return false;
  return double.length === 2 ? parts.length < width : parts.length === width;
}

export function isIP(s: string): boolean {
  return isIPv4(s) || isIPv6(s);
}

const label = "[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?";
const dnsNamePattern = new RegExp(`^${label}(\\.${label})*$`);

/**
 * A DNS name as Kubernetes accepts it (RFC 1123 subdomain, lower case, at most 253 characters) whose
 * last label is not all digits: "10.237.10.300" is a mistyped IPv4 address, not a host name (no
 * top-level domain is numeric, RFC 1123 section 2.1).
 */
export function isDnsName(s: string): boolean {
  return s.length <= 253 && dnsNamePattern.test(s) && !isIPv4(s) && !/(^|\.)\d+$/.test(s);
}

/** Digits and dots only: meant as an IPv4 address (and, when not one, worth saying so). */
export function looksLikeIPv4(s: string): boolean {
  return /^[\d.]+$/.test(s) && s.includes(".");
}

/** A DNS-1123 label: the shape of cluster, host and credential names. */
export function isDns1123Label(s: string): boolean {
  return s.length <= 63 && new RegExp(`^${label}$`).test(s);
}
