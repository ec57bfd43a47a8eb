// The 1.5 legacy profile (hyperkube, kubelet flags only, no CRI runtime) bootstrapped on a lab of one
// master and one worker. Real upstream binaries of that era cannot be built here, so the lab runs its
// stand-ins for it (docs/lab-cluster.md); what this proves is the product's side: the rendered
// files, flags, units, SSH commands and API calls of the profile. Brings up its own lab ("leg").
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { labClusterDefinition, labClusterSecrets } from "../../lab/cluster-yaml";
import { labDown, labUp } from "../../lab/lab";
import type { LabState } from "../../lab/state";
import { labKube } from "../../test/lab-kube";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { validateClusterDefinition } from "../cluster/definition";
import { createCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { listRunEvents } from "./events";
import { planRun } from "./plan-run";
import { startRun } from "./runs";
import { executeRun } from "./runner";

const LAB = "leg";
let lab: LabState;
let db: TempDb;

beforeAll(async () => {
  labDown(LAB, () => undefined);
  lab = await labUp({ name: LAB, masters: 1, workers: 1, images: false, log: () => undefined });
  db = await createTempDb();
}, 300_000);

afterAll(async () => {
  if (!process.env.BOOTDECK_KEEP_LAB) labDown(LAB, () => undefined);
  await db?.cleanup();
});

describe("the 1.5 legacy profile on lab hosts", () => {
  it("bootstraps with hyperkube from the mirror, its published checksum checked", async () => {
    const v = validateClusterDefinition(labClusterDefinition(lab, "legacy", "v1.5.3").definition);
    if (!v.ok) throw new Error(JSON.stringify(v.errors));
    const { id } = await createCluster({ definition: v.definition, secrets: labClusterSecrets(lab) });
    const runId = await planRun({ clusterId: id, body: { type: "bootstrap", acceptWarnings: true }, by: "test" });
    await startRun({ runId });
    const status = await executeRun(runId, { workerId: "test" });
    const failed = await getDb().step.findMany({ where: { runId, status: "failed" }, select: { key: true, error: true } });
    expect({ status, failed }).toEqual({ status: "succeeded", failed: [] });
    const phases = (await getDb().step.findMany({ where: { runId }, select: { phase: true } })).map((s) => s.phase);
    // No container runtime phase: the 1.5 era ran Docker's dockershim.
    expect(phases).not.toContain("runtime");
    const events = await listRunEvents({ runId, limit: 100_000 });
    expect(events.filter((e) => e.type === "step.finished" && e.data.key === "verify/cluster").at(-1)?.data.summary).toMatch(/^2 nodes Ready/);
    const { ssh } = labKube(lab);
    expect(ssh("worker-1", "test -x /usr/bin/hyperkube && echo executable").trim()).toBe("executable");
    expect(ssh("worker-1", "head -n 3 /usr/bin/hyperkube")).toMatch(/^BOOTDECK_LAB_K8S_VERSION=v1\.5\.3$/m);
    const published = execFileSync("curl", ["-sf", `${lab.mirrorUrl}/dl.k8s.io/release/v1.5.3/bin/linux/amd64/hyperkube.sha256`], { encoding: "utf8" }).trim();
    expect(ssh("worker-1", "sha256sum /usr/bin/hyperkube").split(" ")[0]).toBe(published);
  }, 10 * 60_000);
});
