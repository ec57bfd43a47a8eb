// IPv4 arithmetic for cluster networks. Cluster CIDRs are IPv4 here (as bootkube's were); host
// addresses may also be IPv6 or DNS names and are checked with node:net where they are used.
import { isIPv4 } from "./net-syntax";

export type Cidr = { base: number; prefix: number; text: string };

export function ipv4ToInt(ip: string): number {
  return ip.split(".").reduce((acc, part) => acc * 256 + Number(part), 0);
}

export function intToIpv4(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join(".");
}

/** Parses "a.b.c.d/n"; returns a reason string when the text is not a well-formed network. */
export function parseCidr(text: string): Cidr | string {
  const [ip, prefixText, extra] = text.split("/");
  if (extra !== undefined || !ip || prefixText === undefined) return "must look like 10.2.0.0/16";
  if (!isIPv4(ip)) return "must be an IPv4 network such as 10.2.0.0/16";
  if (!/^\d{1,2}$/.test(prefixText)) return "prefix length must be a number from 1 to 30";
  const prefix = Number(prefixText);
  if (prefix < 1 || prefix > 30) return "prefix length must be from 1 to 30";
  const addr = ipv4ToInt(ip);
  const size = 2 ** (32 - prefix);
  const base = addr - (addr % size);
  if (base !== addr) return `has host bits set; did you mean ${intToIpv4(base)}/${prefix}?`;
  return { base, prefix, text };
}

export function cidrSize(c: Cidr): number {
  return 2 ** (32 - c.prefix);
}

export function cidrContains(c: Cidr, ip: string): boolean {
  if (!isIPv4(ip)) return false;
  const n = ipv4ToInt(ip);
  return n >= c.base && n < c.base + cidrSize(c);
}

export function cidrsOverlap(a: Cidr, b: Cidr): boolean {
  return a.base < b.base + cidrSize(b) && b.base < a.base + cidrSize(a);
}

/** The n-th address of a network: n = 1 is the API service IP, n = 10 the DNS service IP. */
export function nthAddress(c: Cidr, n: number): string {
  return intToIpv4(c.base + n);
}
