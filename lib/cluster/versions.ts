// Kubernetes version profiles Bootdeck can bootstrap. A profile fixes what the rendered assets and
// kubelet flags look like (see docs/cluster-yaml.md and domain.md "Kubelet across versions").

export type VersionProfile = {
  /** Minor version, e.g. "1.32"; the profile's id. */
  minor: string;
  /** The version offered by default for this profile. */
  defaultVersion: string;
  label: string;
  /** 1.5-era: one hyperkube binary, kubelet configured by flags only. */
  hyperkube: boolean;
};

export const versionProfiles: readonly VersionProfile[] = [
  { minor: "1.5", defaultVersion: "v1.5.3", label: "1.5 legacy (hyperkube, as in the Topsail guide)", hyperkube: true },
  { minor: "1.29", defaultVersion: "v1.29.15", label: "1.29", hyperkube: false },
  { minor: "1.30", defaultVersion: "v1.30.14", label: "1.30", hyperkube: false },
  { minor: "1.31", defaultVersion: "v1.31.13", label: "1.31", hyperkube: false },
  { minor: "1.32", defaultVersion: "v1.32.9", label: "1.32 (recommended)", hyperkube: false },
];

export const defaultKubernetesVersion = "v1.32.9";

const versionPattern = /^v(\d+)\.(\d+)\.(\d+)$/;

/** The profile for a version string such as "v1.31.2", or undefined when it is not supported. */
export function findVersionProfile(version: string): VersionProfile | undefined {
  const m = versionPattern.exec(version);
  if (!m) return undefined;
  return versionProfiles.find((p) => p.minor === `${m[1]}.${m[2]}`);
}

/** Numeric minor (e.g. 32 for v1.32.9); callers compare it against the flag-removal table. */
export function minorOf(version: string): number {
  const m = versionPattern.exec(version);
  return m ? Number(m[2]) : Number.NaN;
}
