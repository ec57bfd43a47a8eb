// Shared by the benchmarks: a lab's hosts as executor targets, and the asset set to push.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import type { HostTarget } from "../lib/ssh/types";
import type { LabState } from "../lab/state";

export function targets(state: LabState, count: number, user = "root"): HostTarget[] {
  const key = fs.readFileSync(state.adminKeyPath);
  return state.hosts.slice(0, count).map((h) => ({
    id: h.name,
    address: h.address,
    port: h.port,
    user,
    auth: { kind: "key" as const, privateKey: key },
    hostKey: { pinned: h.hostKeyFingerprint },
  }));
}

export type Asset = { path: string; content: string; mode: number };

/**
 * The Render issue's output for a 3-master cluster (lib/assets renderAssets on the example definition);
 * falls back to 55 synthetic files of realistic sizes if that module is unavailable.
 */
export async function assetSet(): Promise<{ assets: Asset[]; source: string }> {
  try {
    const { renderAssets } = await import("../lib/assets/render");
    const { exampleDefinition } = await import("../lib/cluster/example");
    const rendered = await renderAssets(exampleDefinition({ hosts: 6 }), { encryptionAlgorithm: "RSA-2048" });
    return { assets: rendered.map((a) => ({ path: a.path, content: a.content, mode: a.mode })), source: "lib/assets renderAssets (3 masters + 3 workers, RSA)" };
  } catch (err) {
    const synth = (n: number) => randomBytes(Math.ceil(n * 0.75)).toString("base64").slice(0, n);
    const assets: Asset[] = [];
    for (let i = 0; i < 14; i++) assets.push({ path: `tls/cert-${i}.crt`, content: synth(1200), mode: 0o600 });
    for (let i = 0; i < 14; i++) assets.push({ path: `tls/cert-${i}.key`, content: synth(1700), mode: 0o600 });
    for (let i = 0; i < 27; i++) assets.push({ path: `manifests/m-${i}.yaml`, content: synth(1000 + ((i * 397) % 5000)), mode: 0o600 });
    return { assets, source: `synthetic 55 files (lib/assets unavailable: ${err instanceof Error ? err.message : String(err)})` };
  }
}
