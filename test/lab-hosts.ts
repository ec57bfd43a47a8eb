// Helpers for integration tests: lab hosts as executor targets (what the engine would build from the DB).
import fs from "node:fs";
import { inject } from "vitest";
import type { HostTarget } from "../lib/ssh/types";
import type { LabState } from "../lab/state";

export function labState(): LabState {
  const file = inject("labStatePath");
  if (!file) throw new Error("this run has no shared lab (BOOTDECK_TEST_LAB=none): run this file without it");
  return JSON.parse(fs.readFileSync(file, "utf8")) as LabState;
}

export function labTarget(state: LabState, index: number, user = "root", extra: Partial<HostTarget> = {}): HostTarget {
  const h = state.hosts[index];
  if (!h) throw new Error(`lab has no host #${index}`);
  return {
    id: h.name,
    address: h.address,
    port: h.port,
    user,
    auth: { kind: "key", privateKey: fs.readFileSync(state.adminKeyPath) },
    hostKey: { pinned: h.hostKeyFingerprint },
    ...extra,
  };
}
