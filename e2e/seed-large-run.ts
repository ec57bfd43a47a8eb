// Seeds the browser tests' database with a 500-host cluster and two bootstrap runs written straight into
// the database (no lab, no SSH): one planned, one halfway through (done, failed, running, waiting and
// pending steps). Nothing here reaches a host: the running run's lease is held by a made-up worker far
// into the future, so the dashboard's engine never resumes it. Run with the e2e environment:
//   node --conditions=react-server --import tsx e2e/seed-large-run.ts seed [hosts] [pending] → prints ids (JSON)
//     ("pending": the running run has every step still pending, for bench/live.ts to stream events into)
//   … e2e/seed-large-run.ts wait <runId> <stepKey> <what> <seconds>                     → a step.waiting event
//   … e2e/seed-large-run.ts finish <runId> <stepKey>                                    → the step finishes
import { utils } from "ssh2";
import { exampleDefinition } from "../lib/cluster/example";
import { createCluster } from "../lib/clusters/repository";
import { disconnectDb, getDb } from "../lib/db/client";
import { appendRunEvent } from "../lib/engine/events";
import type { PlannedStep, RunPlan } from "../lib/engine/plan";
import { createRun } from "../lib/engine/runs";
import { testKeyPair } from "../test/ssh-key";

const phases = [
  ["facts", "Gather facts"],
  ["preflight", "Preflight checks"],
  ["packages", "Host packages"],
  ["binaries", "Kubernetes binaries"],
  ["kubelet", "Kubelet"],
  ["control-plane", "Temporary control plane"],
  ["self-hosted", "Self-hosted control plane"],
  ["pivot", "Pivot"],
  ["join", "Join"],
  ["verify", "Verify"],
] as const;

type Host = { name: string; role: "master" | "worker" };

function planFor(hosts: Host[]): RunPlan {
  const step = (phase: string, host: string | null, extra: Partial<PlannedStep> = {}): PlannedStep => ({
    key: `${phase}/${host ?? "cluster"}`,
    phase,
    action: phase,
    title: `${phase} on ${host ?? "the cluster"}`,
    host,
    files: [],
    commands: [`bootdeck-${phase} --host ${host ?? "cluster"}`],
    dependsOn: [],
    timeoutMs: 300_000,
    ...extra,
  });
  const perHost = (phase: string) => hosts.map((h) => step(phase, h.name));
  const first = hosts[0]!.name;
  const steps: Record<string, PlannedStep[]> = {
    facts: perHost("facts"),
    preflight: perHost("preflight"),
    packages: perHost("packages"),
    binaries: perHost("binaries"),
    kubelet: hosts.map((h) =>
      step("kubelet", h.name, {
        files: [
          { path: "/etc/kubernetes/kubelet.conf", mode: 0o600, sha256: "3f9a1c0e5b7d2a4c6e8f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f", size: 2_113 },
          { path: "/etc/systemd/system/kubelet.service", mode: 0o644, sha256: "a0b1c2d3e4f5061728394a5b6c7d8e9f00112233445566778899aabbccddeeff", size: 512 },
        ],
        commands: ["systemctl daemon-reload && systemctl enable --now kubelet", `printf '%s\\n' 'a long command line that must wrap instead of widening the page: ${"x".repeat(160)}'`],
      }),
    ),
    "control-plane": [step("control-plane", first)],
    "self-hosted": [step("self-hosted", null)],
    pivot: [step("pivot", null)],
    join: hosts.slice(1).map((h) => step("join", h.name)),
    verify: [step("verify", null)],
  };
  return { runType: "bootstrap", phases: phases.map(([id, title]) => ({ id, title, steps: steps[id] ?? [] })) };
}

/** ssh2 now and then (about 1 in 100) generates an Ed25519 key its own parser refuses: draw again. */
function privateKey(): string {
  for (;;) {
    const key = testKeyPair();
    if (!(utils.parseKey(key.private) instanceof Error)) return key.private;
  }
}

async function seed(count: number, progress: "halfway" | "pending"): Promise<void> {
  const def = exampleDefinition({ name: `grid-${count}`, hosts: 3 });
  const hosts: (Host & { address: string })[] = Array.from({ length: count }, (_, i) => {
    const role = i < 3 ? ("master" as const) : ("worker" as const);
    return { name: role === "master" ? `master-${i + 1}` : `worker-${i - 2}`, role, address: `10.20.${Math.floor(i / 200)}.${(i % 200) + 10}` };
  });
  def.spec.hosts = hosts;
  const { id: clusterId } = await createCluster({ definition: def, secrets: { "admin-key": { privateKey: privateKey() } } });
  const plan = planFor(hosts);
  const admin = await getDb().user.findUnique({ where: { username: "admin" }, select: { id: true } });
  const plannedRunId = await createRun({ clusterId, type: "bootstrap", plan, createdById: admin?.id });
  const runId = await createRun({ clusterId, type: "bootstrap", plan, createdById: admin?.id });

  // Halfway: phases 1–4 done everywhere, except worker-250, whose packages failed (later steps skipped);
  // kubelet done on the first 300 hosts, running on the next 20, pending on the rest.
  const db = getDb();
  const t0 = Date.now() - 10 * 60_000;
  const at = (s: number) => new Date(t0 + s * 1000);
  const failedHost = hosts[252]?.name ?? hosts.at(-1)!.name;
  const rows = await db.step.findMany({ where: { runId }, select: { id: true, phase: true, host: { select: { name: true } } }, orderBy: { ordinal: "asc" } });
  const index = new Map(hosts.map((h, i) => [h.name, i]));
  const group = new Map<string, { ids: string[]; data: Record<string, unknown> }>();
  const put = (id: string, data: Record<string, unknown>) => {
    const k = JSON.stringify(data);
    const g = group.get(k) ?? { ids: [], data };
    g.ids.push(id);
    group.set(k, g);
  };
  const phaseNo = new Map<string, number>(phases.map(([id], i) => [id, i]));
  for (const r of progress === "halfway" ? rows : []) {
    const p = phaseNo.get(r.phase) ?? 99;
    const host = r.host?.name ?? null;
    const i = host ? (index.get(host) ?? 0) : 0;
    const start = p * 60 + (i % 10);
    if (host === failedHost && p === 2) {
      put(r.id, { status: "failed", attempts: 1, exitCode: 100, startedAt: at(start), finishedAt: at(start + 17), error: "apt-get install conntrack failed: exit code 100", hint: "Check the host's package mirror (apt-get update) and re-run", output: "E: Unable to locate package conntrack\nE: Some packages could not be installed." });
    } else if (host === failedHost && p > 2) {
      put(r.id, { status: "skipped", error: `skipped: an earlier step failed on ${host}` });
    } else if (p < 4) {
      put(r.id, { status: "done", attempts: 1, exitCode: 0, startedAt: at(start), finishedAt: at(start + 20 + (i % 7)), output: `${r.phase}: ok` });
    } else if (p === 4 && i < 300) {
      put(r.id, { status: "done", attempts: 1, exitCode: 0, startedAt: at(start), finishedAt: at(start + 30) });
    } else if (p === 4 && i < 320) {
      put(r.id, { status: "running", attempts: 1, startedAt: at(start + 200) });
    }
  }
  for (const g of group.values()) await db.step.updateMany({ where: { id: { in: g.ids } }, data: g.data });
  // A lease nobody renews and nobody may take: the engine leaves this run alone.
  await db.run.update({ where: { id: runId }, data: { status: "running", startedAt: at(0), workerId: "w_e2e-seed", heartbeatAt: new Date(Date.now() + 7 * 24 * 3600_000) } });
  await appendRunEvent({ runId, type: "run.started" });
  console.log(JSON.stringify({ clusterId, runId, plannedRunId, failedHost, hosts: count }));
}

async function stepByKey(runId: string, key: string) {
  const row = await getDb().step.findUnique({ where: { runId_key: { runId, key } }, select: { id: true, host: { select: { id: true, name: true } } } });
  if (!row) throw new Error(`no step ${key} in ${runId}`);
  return row;
}

async function wait(runId: string, key: string, what: string, seconds: number): Promise<void> {
  const s = await stepByKey(runId, key);
  const since = new Date();
  await getDb().step.update({ where: { id: s.id }, data: { status: "waiting", startedAt: since, attempts: 1 } });
  await appendRunEvent({ runId, type: "step.started", stepId: s.id, hostId: s.host?.id, data: { key, attempt: 1 } });
  await appendRunEvent({ runId, type: "step.waiting", stepId: s.id, hostId: s.host?.id, data: { key, what, host: s.host?.name ?? null, since: since.toISOString(), deadline: new Date(since.getTime() + seconds * 1000).toISOString() } });
}

async function finish(runId: string, key: string): Promise<void> {
  const s = await stepByKey(runId, key);
  await getDb().step.update({ where: { id: s.id }, data: { status: "done", finishedAt: new Date(), exitCode: 0 } });
  await appendRunEvent({ runId, type: "step.finished", stepId: s.id, hostId: s.host?.id, data: { key, durationMs: 1000 } });
}

async function main(cmd: string | undefined, args: string[]): Promise<void> {
  try {
    if (cmd === "seed") await seed(Number(args[0] ?? 500), args[1] === "pending" ? "pending" : "halfway");
    else if (cmd === "wait") await wait(args[0]!, args[1]!, args[2]!, Number(args[3]));
    else if (cmd === "finish") await finish(args[0]!, args[1]!);
    else throw new Error(`unknown command ${cmd ?? "(none)"}: seed [hosts] [pending] | wait <runId> <stepKey> <what> <seconds> | finish <runId> <stepKey>`);
  } finally {
    await disconnectDb();
  }
}

const [cmd, ...args] = process.argv.slice(2);
main(cmd, args).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
