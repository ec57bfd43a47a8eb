import { gunzipSync } from "node:zlib";
import { Readable } from "node:stream";
import { extract } from "tar-stream";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { exampleDefinition } from "../cluster/example";
import { createCluster, getClusterOrThrow } from "../clusters/repository";
import { getDb } from "../db/client";
import { runSupportBundle, scrubBundleText } from "./bundle";
import { appendRunEvent } from "./events";
import { buildCheckPlan } from "./plans";
import { createRun } from "./runs";
import { testKeyPair } from "../../test/ssh-key";

let db: TempDb;
let clusterId: string;
let privateKey: string;
const TOKEN = "abcdef.0123456789abcdef";

beforeAll(async () => {
  db = await createTempDb();
  privateKey = testKeyPair().private;
  clusterId = (await createCluster({ definition: exampleDefinition({ name: "bundled", hosts: 2 }), secrets: { "admin-key": { privateKey } } })).id;
});
afterAll(async () => db?.cleanup());

/** The tarball's entries: path → { text, mode, type }. */
async function readTarGz(buffer: Buffer): Promise<Map<string, { text: string; mode: number; type: string }>> {
  const out = new Map<string, { text: string; mode: number; type: string }>();
  const ex = extract();
  Readable.from([gunzipSync(buffer)]).pipe(ex);
  for await (const entry of ex) {
    const chunks: Buffer[] = [];
    for await (const c of entry) chunks.push(c as Buffer);
    out.set(entry.header.name, { text: Buffer.concat(chunks).toString("utf8"), mode: entry.header.mode ?? 0, type: entry.header.type ?? "file" });
  }
  return out;
}

describe("scrubBundleText", () => {
  test("replaces whole private-key blocks, also cut ones and ones inside JSON strings", () => {
    const text = `before\n${privateKey}after\n`;
    expect(scrubBundleText(text)).toBe("before\n[REDACTED]\nafter\n");
    expect(scrubBundleText(JSON.stringify({ key: privateKey, next: 1 }))).toBe('{"key":"[REDACTED]\\n","next":1}');
    expect(scrubBundleText("x -----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAAAA")).toBe("x [REDACTED]");
  });

  test("replaces bootstrap tokens, also glued to other text, and leaves look-alikes", () => {
    expect(scrubBundleText(`kubeadm join --token ${TOKEN} x`)).toBe("kubeadm join --token [REDACTED] x");
    expect(scrubBundleText(`"${TOKEN}_x"`)).toBe('"[REDACTED]_x"');
    expect(scrubBundleText("image registry.k8s.io/pause:3.9 on abcdefg.0123456789abcdef")).toBe("image registry.k8s.io/pause:3.9 on abcdefg.0123456789abcdef");
  });

  test("also applies the executor's patterns (password=…)", () => {
    expect(scrubBundleText("password=hunter22 ok")).toBe("password=[REDACTED] ok");
  });

  test("replaces a kubeconfig's client-key-data and token (in a JSON event too), keeps its certificate", () => {
    const key = Buffer.from(privateKey).toString("base64");
    const kubeconfig = `    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t\n    client-key-data: ${key}\n    token: 0123456789abcdef0123\n`;
    expect(scrubBundleText(kubeconfig)).toBe("    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t\n    client-key-data: [REDACTED]\n    token: [REDACTED]\n");
    const event = JSON.stringify({ type: "step.output", data: { line: kubeconfig } });
    expect(scrubBundleText(event)).not.toContain(key.slice(0, 40));
    expect(scrubBundleText(event)).not.toContain("0123456789abcdef0123");
  });
});

describe("runSupportBundle", () => {
  test("holds the run, plan, every event, each step's text, facts, journals and cluster.yaml, with secrets redacted", async () => {
    const { definition } = await getClusterOrThrow({ id: clusterId });
    const runId = await createRun({ clusterId, type: "check", plan: buildCheckPlan(definition) });
    const startedAt = new Date("2026-11-30T12:00:00Z");
    await getDb().run.update({ where: { id: runId }, data: { status: "failed", startedAt, finishedAt: new Date(startedAt.getTime() + 90_000), summary: JSON.stringify({ message: "failed on 1 of 2 hosts" }) } });
    const steps = await getDb().step.findMany({ where: { runId }, orderBy: { ordinal: "asc" } });
    const factsStep = steps.find((s) => s.key === "facts/master-1")!;
    const preflight = steps.find((s) => s.key === "preflight/master-1")!;
    await getDb().step.update({ where: { id: factsStep.id }, data: { status: "done", attempts: 1, exitCode: 0, output: "os=Debian", startedAt, finishedAt: new Date(startedAt.getTime() + 2_500) } });
    await getDb().step.update({
      where: { id: preflight.id },
      data: {
        status: "failed",
        attempts: 2,
        exitCode: 1,
        error: "swap is on",
        hint: "swapoff -a",
        output: `checking\nleaked ${TOKEN}\n${privateKey}--- kubelet journal (last lines) ---\nkubelet[1]: failed to run Kubelet`,
        startedAt,
        finishedAt: new Date(startedAt.getTime() + 4_000),
      },
    });
    await getDb().host.updateMany({ where: { clusterId, name: "master-1" }, data: { facts: JSON.stringify({ hostname: "m1", cpus: 4, note: TOKEN }) } });
    const audit = '{"kind":"Event","level":"Metadata","user":{"username":"kubernetes-admin"},"verb":"delete","requestURI":"/api/v1/namespaces/default/secrets/s"}';
    const diagnostics = { host: "master-2", at: "2026-12-06T20:00:00.000Z", durationMs: 2_400, sections: [{ title: "disk", text: "/dev/sda1 10G" }, { title: "API audit log", text: `${audit}\nwith ${TOKEN}` }] };
    await getDb().host.updateMany({ where: { clusterId, name: "master-2" }, data: { diagnostics: JSON.stringify(diagnostics) } });
    for (let i = 0; i < 3; i++) await appendRunEvent({ runId, type: "step.output", stepId: preflight.id, data: { line: `line ${i}` } });

    const { filename, buffer } = await runSupportBundle({ runId });
    const root = `bootdeck-bundled-${runId}`;
    expect(filename).toBe(`${root}.tar.gz`);
    const files = await readTarGz(buffer);
    const names = [...files.keys()].filter((n) => !n.endsWith("/")).map((n) => n.slice(root.length + 1));
    expect(names.sort()).toEqual([
      "README.txt",
      "cluster.yaml",
      "events.jsonl",
      "hosts/master-1/facts.json",
      "hosts/master-1/kubelet-journal.txt",
      "hosts/master-2/diagnostics.txt",
      "plan.json",
      "run.json",
      "steps/facts/master-1.txt",
      "steps/facts/master-2.txt",
      "steps/preflight/cluster.txt",
      "steps/preflight/master-1.txt",
      "steps/preflight/master-2.txt",
    ]);
    for (const [name, f] of files) expect([name, f.mode]).toEqual([name, name.endsWith("/") ? 0o700 : 0o600]);
    const text = (p: string) => files.get(`${root}/${p}`)!.text;

    expect(JSON.parse(text("run.json"))).toMatchObject({ id: runId, clusterName: "bundled", type: "check", status: "failed", startedAt: startedAt.toISOString(), summary: { message: "failed on 1 of 2 hosts" }, steps: { done: 1, failed: 1, pending: 3 } });
    expect(JSON.parse(text("plan.json")).phases.map((p: { id: string }) => p.id)).toEqual(["facts", "preflight"]);
    const events = text("events.jsonl").trim().split("\n").map((l) => JSON.parse(l) as { seq: number; type: string });
    expect(events.map((e) => [e.seq, e.type])).toEqual([
      [1, "run.planned"],
      [2, "step.output"],
      [3, "step.output"],
      [4, "step.output"],
    ]);

    const step = text("steps/preflight/master-1.txt");
    expect(step).toContain("== Preflight on master-1 ==");
    expect(step).toMatch(/status: +failed\nattempts: +2\nexit code: +1\n/);
    expect(step).toMatch(/duration: +4\.0 s\nerror: +swap is on\nhint: +swapoff -a\n/);
    expect(step).toContain("leaked [REDACTED]\n[REDACTED]\n--- kubelet journal");
    expect(text("steps/facts/master-2.txt")).toMatch(/status: +pending[\s\S]*\(no output\)/);
    expect(text("hosts/master-1/kubelet-journal.txt")).toBe(`== after step preflight/master-1 (failed, finished ${new Date(startedAt.getTime() + 4_000).toISOString()}) ==\nkubelet[1]: failed to run Kubelet\n`);
    expect(JSON.parse(text("hosts/master-1/facts.json"))).toEqual({ hostname: "m1", cpus: 4, note: "[REDACTED]" });
    // The host's last diagnostics, as taken (the audit log's lines among them), scrubbed like the rest.
    expect(text("hosts/master-2/diagnostics.txt")).toBe(`Diagnostics of master-2, taken 2026-12-06T20:00:00.000Z (2.4 s)\n\n== disk ==\n/dev/sda1 10G\n\n== API audit log ==\n${audit}\nwith [REDACTED]\n`);
    expect(text("README.txt")).toContain("master-2 2026-12-06T20:00:00.000Z");
    expect(text("cluster.yaml")).toContain("name: bundled");
    expect(text("README.txt")).toContain("Not included: the pod list");

    for (const [name, f] of files) {
      expect(f.text, name).not.toContain("PRIVATE KEY");
      expect(f.text, name).not.toContain(TOKEN);
    }
  });

  test("an unknown run is a 404", async () => {
    await expect(runSupportBundle({ runId: "run_AAAAAAAAAAAAAAAA" })).rejects.toMatchObject({ status: 404 });
  });
});
