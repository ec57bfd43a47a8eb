// What the chosen Kubernetes version makes of the wizard's fields, asked of the capabilities table so
// the wizard shows exactly the fields the engine uses for that version.
import { capabilitiesFor } from "@/lib/assets/capabilities";
import { minorOf } from "@/lib/cluster/versions";

export type VersionFeatures = {
  /** The kubelet refuses cgroup v1 hosts unless they are allowed. */
  cgroupV1Refused: boolean;
};

export function versionFeatures(version: string): VersionFeatures {
  // A version the wizard cannot read yet (validation says why): show every field rather than hide some.
  if (!Number.isFinite(minorOf(version))) return { cgroupV1Refused: true };
  return { cgroupV1Refused: capabilitiesFor(version).cgroupV1Refused };
}
