// What the chosen Kubernetes version makes of the wizard's fields, asked of the capabilities table so
// the wizard shows exactly the fields the engine uses for that version.
import { capabilitiesFor } from "@/lib/assets/capabilities";
import { minorOf } from "@/lib/cluster/versions";

export type VersionFeatures = {
  /** Bootdeck installs containerd (runtime fields, registry CA and pull credentials apply). */
  criRuntime: boolean;
  /** The kubelet has `failCgroupV1` (the cgroup v1 choice reaches its configuration). */
  cgroupV1Choice: boolean;
  /** The kubelet refuses cgroup v1 hosts unless they are allowed. */
  cgroupV1Refused: boolean;
  /** One hyperkube binary stands in for the kubelet (its checksum is the kubelet pin's). */
  hyperkube: boolean;
};

export function versionFeatures(version: string): VersionFeatures {
  // A version the wizard cannot read yet (validation says why): show every field rather than hide some.
  if (!Number.isFinite(minorOf(version))) return { criRuntime: true, cgroupV1Choice: true, cgroupV1Refused: true, hyperkube: false };
  const caps = capabilitiesFor(version);
  return { criRuntime: caps.criRuntime, cgroupV1Choice: caps.failCgroupV1Field, cgroupV1Refused: caps.cgroupV1Refused, hyperkube: caps.hyperkube };
}
