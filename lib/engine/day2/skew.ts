// Kubernetes' version skew policy, as an upgrade must respect it: one minor at a time, never down, the
// control plane before the kubelets, and no kubelet newer than the oldest API server. Browser-safe.
import { findVersionProfile } from "../../cluster/versions";

export type Version = { major: number; minor: number; patch: number };

export function parseVersion(v: string): Version | undefined {
  const m = /^v(\d+)\.(\d+)\.(\d+)$/.exec(v);
  return m ? { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) } : undefined;
}

/** Negative when a < b, 0 when equal, positive when a > b. */
export function compareVersions(a: Version, b: Version): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

/**
 * Why an upgrade from `from` to `to` is refused, or undefined when the policy allows it. A patch
 * upgrade and the next minor are allowed; the same version, a downgrade, a skipped minor and a version
 * without a Bootdeck profile are not.
 */
export function upgradeRefusal(from: string, to: string): string | undefined {
  const a = parseVersion(from);
  const b = parseVersion(to);
  if (!b) return `${to} is not a version (it must look like v1.37.2)`;
  if (!a) return `the cluster's version ${from} is not one Bootdeck can read`;
  if (!findVersionProfile(to)) return `${to} is not a Kubernetes version Bootdeck supports`;
  if (a.major !== b.major) return `an upgrade stays within Kubernetes ${a.major}.x`;
  const c = compareVersions(b, a);
  if (c === 0) return `the cluster runs ${from} already`;
  if (c < 0) return `${to} is older than ${from}: Kubernetes does not support downgrades`;
  if (b.minor - a.minor > 1) return `${from} → ${to} skips ${b.minor - a.minor - 1} minor version${b.minor - a.minor > 2 ? "s" : ""}: upgrade one minor at a time (first to v${a.major}.${a.minor + 1}.x)`;
  return undefined;
}

/**
 * Why the running components break the policy for an upgrade to `to`, or undefined. `apiservers` and
 * `kubelets` are the versions seen (name → version). A half-done upgrade is fine: API servers at `from`
 * or `to`, kubelets never newer than the oldest API server nor more than three minors older.
 */
export function runningSkewProblem(input: { from: string; to: string; apiservers: Record<string, string>; kubelets: Record<string, string> }): string | undefined {
  const to = parseVersion(input.to);
  const from = parseVersion(input.from);
  if (!to || !from) return `cannot read ${!to ? input.to : input.from}`;
  const servers = Object.entries(input.apiservers);
  if (servers.length === 0) return "no API server version could be read";
  for (const [name, v] of servers) {
    const p = parseVersion(v);
    if (!p || compareVersions(p, from) < 0 || compareVersions(p, to) > 0) return `the API server on ${name} runs ${v}, not ${input.from} or ${input.to}`;
  }
  const oldest = servers.map(([, v]) => parseVersion(v)!).sort(compareVersions)[0]!;
  for (const [name, v] of Object.entries(input.kubelets)) {
    const p = parseVersion(v);
    if (!p) return `${name}'s kubelet reports ${v}, which Bootdeck cannot read`;
    if (compareVersions(p, oldest) > 0) return `${name}'s kubelet ${v} is newer than an API server (${fmt(oldest)}): kubelets must never be newer than the API servers`;
    if (to.minor - p.minor > 3) return `${name}'s kubelet ${v} would be more than three minors older than ${input.to}: upgrade it first`;
  }
  return undefined;
}

const fmt = (v: Version) => `v${v.major}.${v.minor}.${v.patch}`;
