import "server-only";
// The client's address, for the audit log and sign-in throttling. Headers a client sends cannot be
// believed: X-Forwarded-For and X-Real-IP count only when the TCP peer is a proxy listed in
// BOOTDECK_TRUSTED_PROXIES.
//
// Next.js does not give route handlers (nor proxy.ts) the socket: its server copies the peer's address
// into X-Forwarded-For only when the client sent none, so a forged header and a real one look the
// same. server.js, the production server, therefore stamps every request with the peer's address
// under a per-process random token that no client can know. Without it (`next dev`, a bare `next
// start`) the address is unknown: audited as such, and sign-in throttling falls back to per-account.
import { timingSafeEqual } from "node:crypto";
import { BlockList, isIP } from "node:net";
import { getEnv, type ProxyEntry } from "./env";

/** Set by server.js on every request: "<stamp> <peer address>". */
export const PEER_HEADER = "x-bootdeck-peer";
/** Where server.js keeps this process's stamp. */
export const PEER_STAMP_KEY = Symbol.for("bootdeck.peerStamp");

const holder = globalThis as unknown as Record<symbol, string | undefined>;

/** The TCP peer's address as server.js stamped it, or undefined when the stamp is missing or wrong. */
export function peerAddress(headers: Headers): string | undefined {
  const stamp = holder[PEER_STAMP_KEY];
  const value = headers.get(PEER_HEADER);
  if (!stamp || !value) return undefined;
  const [given = "", address = ""] = value.split(" ");
  const a = Buffer.from(given);
  const b = Buffer.from(stamp);
  if (a.length !== b.length || !timingSafeEqual(a, b)) return undefined;
  return normalize(address);
}

/** For tests and server.js's contract: the header value that names `address` as the peer. */
export function peerStampValue(address: string): string {
  const stamp = (holder[PEER_STAMP_KEY] ??= crypto.randomUUID().replaceAll("-", ""));
  return `${stamp} ${address}`;
}

let cachedList: { source: ProxyEntry[]; list: BlockList } | undefined;
function trustedList(): BlockList {
  const entries = getEnv().trustedProxies;
  if (cachedList?.source === entries) return cachedList.list;
  const list = new BlockList();
  for (const e of entries) list.addSubnet(e.address, e.prefix, e.family);
  cachedList = { source: entries, list };
  return list;
}

const isTrusted = (address: string) => {
  const v = isIP(address);
  return v !== 0 && trustedList().check(address, v === 4 ? "ipv4" : "ipv6");
};

/** An IPv4 address mapped into IPv6 ("::ffff:10.0.0.1") is written as IPv4; anything else that is not an address is dropped. */
function normalize(address: string): string | undefined {
  const a = address.trim().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "");
  return isIP(a) ? a : undefined;
}

/** Whether the TCP peer is one of BOOTDECK_TRUSTED_PROXIES: only then do its forwarding headers count. */
export function peerIsTrustedProxy(headers: Headers): boolean {
  const peer = peerAddress(headers);
  return peer !== undefined && isTrusted(peer);
}

/**
 * The client's address: the peer's, unless the peer is a trusted proxy; then the nearest address in
 * X-Forwarded-For (read from the right) that is not a trusted proxy, or X-Real-IP. Undefined when the
 * peer is not known.
 */
export function clientAddress(headers: Headers): string | undefined {
  const peer = peerAddress(headers);
  if (!peer || !isTrusted(peer)) return peer;
  const chain = (headers.get("x-forwarded-for") ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  for (let i = chain.length - 1; i >= 0; i--) {
    const hop = normalize(chain[i]!);
    if (!hop) return peer; // a proxy we trust wrote garbage: believe nothing further left
    if (!isTrusted(hop)) return hop;
  }
  if (chain.length === 0) return normalize(headers.get("x-real-ip") ?? "") ?? peer;
  return normalize(chain[0]!) ?? peer;
}

/**
 * Whether the request came over HTTPS: as a trusted proxy in front says (X-Forwarded-Proto counts
 * only from BOOTDECK_TRUSTED_PROXIES, as X-Forwarded-For does). The request URL's own scheme proves
 * nothing: server.js serves plain HTTP, and Next.js builds a route's URL scheme from the client's
 * X-Forwarded-Proto. Where TLS ends elsewhere without a listed proxy, BOOTDECK_SECURE_COOKIES=always.
 */
export function isHttpsRequest(headers: Headers): boolean {
  return peerIsTrustedProxy(headers) && headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() === "https";
}
