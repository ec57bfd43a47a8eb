// What phase 1 (lib/engine/actions/facts.ts) found on a host, kept as JSON on its Host row; browser-safe.
export type HostFacts = {
  os: string;
  osId: string;
  kernel: string;
  arch: string;
  hostname: string;
  init: string;
  cpus: number;
  memKb: number;
  addresses: { iface: string; cidr: string }[];
  /** The host's clock minus the dashboard's, corrected by half the round trip (seconds). */
  clockOffsetS: number;
  /**
   * How far off that offset can be: half the round trip it was measured over (seconds), which includes
   * waiting for an SSH slot and connecting — seconds on a saturated dashboard. Absent in older facts.
   */
  clockUncertaintyS?: number;
  gatheredAt: string;
};
