// Kubernetes version profiles Bootdeck can bootstrap, and the component versions each release pins.
// A profile fixes what the rendered assets and kubelet flags look like (see docs/cluster-yaml.md); the
// pins are what upstream's kubeadm of that release installs (its DefaultEtcdVersion, CoreDNSVersion and
// PauseVersion), so a Bootdeck cluster runs the combination upstream tested. Browser-safe.

export type VersionProfile = {
  /** Minor version, e.g. "1.36"; the profile's id. */
  minor: string;
  /** The version offered by default for this profile (its newest patch Bootdeck was tested with). */
  defaultVersion: string;
  /** The minor version, e.g. "1.32". */
  label: string;
  /** Said after the version, e.g. "recommended"; never in parentheses of its own. */
  note?: string;
  /** Components the release pins. */
  pins: ReleasePins;
};

export type ReleasePins = {
  /** etcd image tag (registry.k8s.io/etcd), as kubeadm pins it. */
  etcd: string;
  /** CoreDNS version (registry.k8s.io/coredns/coredns). */
  coredns: string;
  /** Pause (sandbox) image tag (registry.k8s.io/pause). */
  pause: string;
};

export const versionProfiles: readonly VersionProfile[] = [
  { minor: "1.34", defaultVersion: "v1.34.4", label: "1.34", pins: { etcd: "3.6.5-0", coredns: "v1.12.1", pause: "3.10.1" } },
  { minor: "1.35", defaultVersion: "v1.35.4", label: "1.35", pins: { etcd: "3.6.6-0", coredns: "v1.13.1", pause: "3.10.1" } },
  { minor: "1.36", defaultVersion: "v1.36.3", label: "1.36", note: "recommended", pins: { etcd: "3.6.8-0", coredns: "v1.14.2", pause: "3.10.2" } },
  { minor: "1.37", defaultVersion: "v1.37.2", label: "1.37", pins: { etcd: "3.7.0-0", coredns: "v1.14.6", pause: "3.10.2" } },
];

/**
 * The default: the newest patch of 1.36, not 1.37. 1.37.2 is the newest minor's second patch and
 * moves etcd to a new minor (3.7.0); 1.36.3 runs etcd 3.6, which has had eight patch releases, and a
 * cluster on it moves to 1.37 with one upgrade run when 1.37 has matured.
 */
export const defaultKubernetesVersion = "v1.36.3";

/** Profiles that were dropped, with why, so a definition naming one gets a useful message. */
export const droppedProfiles: Readonly<Record<string, string>> = {
  "1.5": "the legacy hyperkube profile was retired",
  "1.29": "out of upstream support",
  "1.30": "out of upstream support",
  "1.31": "out of upstream support",
  "1.32": "out of upstream support",
  "1.33": "not offered: upgrade paths start at 1.34",
};

const versionPattern = /^v(\d+)\.(\d+)\.(\d+)$/;

/** The profile for a version string such as "v1.36.2", or undefined when it is not supported. */
export function findVersionProfile(version: string): VersionProfile | undefined {
  const m = versionPattern.exec(version);
  if (!m) return undefined;
  return versionProfiles.find((p) => p.minor === `${m[1]}.${m[2]}`);
}

/** The profile for a version, or an error naming why there is none. */
export function versionProblem(version: string): string | undefined {
  const supported = versionProfiles.map((p) => `v${p.minor}.x`).join(", ");
  const m = versionPattern.exec(version);
  if (!m) return `must look like v1.36.3; supported: ${supported}`;
  const minor = `${m[1]}.${m[2]}`;
  if (versionProfiles.some((p) => p.minor === minor)) return undefined;
  const dropped = droppedProfiles[minor];
  return dropped ? `v${minor} is no longer supported (${dropped}); supported: ${supported}` : `is not a supported Kubernetes version; supported: ${supported}`;
}

/** Numeric minor (e.g. 36 for v1.36.3); callers compare it through the capabilities table. */
export function minorOf(version: string): number {
  const m = versionPattern.exec(version);
  return m ? Number(m[2]) : Number.NaN;
}

/** The profile of a version that validation already accepted. */
export function profileOf(version: string): VersionProfile {
  const p = findVersionProfile(version);
  if (!p) throw new Error(`not a supported Kubernetes version: ${version}`);
  return p;
}

/** "v1.36.3 (recommended)", "v1.34.4". */
export function describeVersion(version: string): string {
  const note = findVersionProfile(version)?.note;
  return note ? `${version} (${note})` : version;
}

/** The wizard's choice: "v1.36.3 — 1.36, recommended". */
export function versionChoiceLabel(p: VersionProfile): string {
  return `${p.defaultVersion} — ${p.label}${p.note ? `, ${p.note}` : ""}`;
}
