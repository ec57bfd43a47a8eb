// bootdeck apply: the dashboard's bootstrap, headless. Saves the cluster.yaml, plans the run, shows the
// plan, and (confirmed, or with --yes) runs it in this process, printing one line per step.
import { recordAudit } from "../../lib/audit/record";
import { disconnectDb, getDb } from "../../lib/db/client";
import { listRunEvents, type StoredRunEvent } from "../../lib/engine/events";
import { toYaml } from "../../lib/assets/yaml-out";
import type { RunPlan } from "../../lib/engine/plan";
import { planText as fullPlanText } from "../../lib/engine/plan-view";
import { planRun } from "../../lib/engine/plan-run";
import { getRunPlan, startRun } from "../../lib/engine/runs";
import { cancelRun } from "../../lib/engine/start";
import { getRunQueue } from "../../lib/engine/queue";
import { getEngineWorker } from "../../lib/engine/worker";
import { AppError } from "../../lib/http/errors";
import type { Command } from "./command";
import { confirm } from "./terminal";
import { importFile } from "./import";

const USAGE = `Usage: bootdeck apply --config cluster.yaml [--dry-run] [--yes] [--accept-warnings] [--output text|yaml|json] [--verbose]

Saves the cluster (as bootdeck import --replace does), plans its bootstrap (phases × hosts, with every
file's checksum, every command and every object it writes through the cluster's API), prints the whole
plan, and runs it once confirmed.
  --dry-run   print the plan and stop; the planned run stays in the dashboard to confirm there
  --yes       do not ask for confirmation (needed when stdin is not a terminal)
  --accept-warnings
              go on past preflight warnings (without it they stop the run, as errors always do)
  --output    how the plan is printed: text (the default, for a person), yaml or json (the plan as
              stored, for machines); progress lines follow either way
  --verbose   print the commands' output while they run
Ctrl-C cancels the run (commands in flight are stopped); running it again resumes from what is done.`;

export type PlanOutput = "text" | "yaml" | "json";

/** The `--output` of a command that prints a plan; undefined (with a message) for anything else. */
export function planOutput(argv: readonly string[]): PlanOutput | undefined {
  const i = argv.indexOf("--output");
  const v = i >= 0 ? argv[i + 1] : "text";
  if (v === "text" || v === "yaml" || v === "json") return v;
  console.error(`--output must be text, yaml or json (got ${v ?? "nothing"})`);
  return undefined;
}

/** The whole plan, nothing cut: for a person (a summary line, then every step per host), or as YAML or JSON. */
export function planText(plan: RunPlan, output: PlanOutput = "text"): string {
  if (output === "json") return JSON.stringify(plan, null, 2);
  if (output === "yaml") return toYaml(plan);
  const hosts = new Set(plan.phases.flatMap((p) => p.steps.map((s) => s.host).filter(Boolean)));
  const steps = plan.phases.reduce((n, p) => n + p.steps.length, 0);
  return `Plan: ${plan.runType} on ${hosts.size} hosts, ${plan.phases.length} phases, ${steps} steps\n${fullPlanText(plan)}`;
}

const clock = (ms: number) => {
  const s = Math.max(0, Math.round(ms / 1000));
  return `${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
};

/** One progress line per event worth a line; undefined for the rest. */
export function progressLine(e: StoredRunEvent, startedAt: number, verbose: boolean): string | undefined {
  const t = `[${clock(Date.parse(e.at) - startedAt)}]`;
  const d = e.data;
  switch (e.type) {
    case "phase.started":
      return `${t} ── ${String(d.title)}`;
    case "step.started":
      return verbose || Number(d.attempt) > 1 || d.resumed ? `${t} ${String(d.key)} started${d.resumed ? " (resumed)" : ""}` : undefined;
    case "step.waiting": {
      const deadline = clock(Date.parse(String(d.deadline)) - Date.parse(String(d.since)));
      return `${t} ${String(d.key)} waiting for ${String(d.what)} (deadline ${deadline})`;
    }
    case "step.finished":
      return `${t} ✔ ${String(d.key)} (${(Number(d.durationMs) / 1000).toFixed(1)} s) ${String(d.summary ?? "")}`;
    case "step.retrying":
      return `${t} ↻ ${String(d.key)}: ${String(d.error)} — attempt ${String(d.attempt)} of ${String(d.of)} in ${Math.round(Number(d.inMs) / 1000)} s`;
    case "step.failed":
      return `${t} ✘ ${String(d.key)}: ${String(d.error)}${d.hint ? `\n         hint: ${String(d.hint)}` : ""}`;
    case "step.output":
      return verbose ? (d.lines as { stream: string; line: string }[]).map((l) => `         ${String(d.step)} ${l.stream === "stderr" ? "!" : "|"} ${l.line}`).join("\n") : undefined;
    case "host.key-pinned":
      return `${t} pinned the host key of ${String(d.host)}: ${String(d.fingerprint)}`;
    case "run.finished": {
      const summary = (d.summary ?? {}) as { message?: string };
      if (d.status === "needs-decision")
        return `${t} run stopped, it ${summary.message ?? "needs a decision"}\n         to go on: run this again with --accept-warnings, or accept them on the run's page in the dashboard`;
      return `${t} run ${String(d.status)}: ${summary.message ?? ""}`;
    }
    default:
      return undefined;
  }
}


export const apply: Command = {
  async run(argv) {
    const i = argv.indexOf("--config");
    const file = i >= 0 ? argv[i + 1] : undefined;
    if (argv.includes("--help") || !file) {
      console.log(USAGE);
      return file || argv.includes("--help") ? 0 : 2;
    }
    const dryRun = argv.includes("--dry-run");
    const yes = argv.includes("--yes");
    const verbose = argv.includes("--verbose");
    const output = planOutput(argv);
    if (!output) return 2;
    try {
      const saved = await importFile(file, { replace: true, via: "cli apply" });
      if (!saved.ok) return 1;
      const runId = await planRun({ clusterId: saved.id, body: { type: "bootstrap", acceptWarnings: argv.includes("--accept-warnings") }, by: `cli:${process.env.USER ?? "?"}` });
      console.log(planText(await getRunPlan(runId), output));
      if (dryRun) {
        console.log(`\ndry run: nothing was changed on the hosts. The plan is saved as run ${runId}; confirm it in the dashboard, or run this again with --yes.`);
        return 0;
      }
      if (!yes) {
        if (!process.stdin.isTTY) {
          console.error("bootdeck apply: not confirmed; pass --yes to run without a terminal");
          return 2;
        }
        if (!(await confirm(`\nRun this plan on cluster ${saved.name}? [y/N] `))) {
          console.log(`not started; the plan stays as run ${runId}`);
          return 1;
        }
      }
      await startRun({ runId });
      await recordAudit({ action: "run.start", username: `cli:${process.env.USER ?? "?"}`, target: runId, details: { via: "cli apply" } });
      return await follow(runId, verbose);
    } catch (err) {
      if (err instanceof AppError) {
        console.error(`bootdeck apply: ${err.message}`);
        return 1;
      }
      throw err;
    } finally {
      await disconnectDb();
    }
  },
};

/**
 * Runs the started run in this process and prints its events after `afterSeq` until it finishes (a
 * retried run's earlier events are not shown again).
 */
export async function follow(runId: string, verbose: boolean, afterSeq = 0): Promise<number> {
  // SQLite: this process runs it. PostgreSQL: it is queued, and this process works the queue while it
  // follows (another worker may take it first; the output is the same).
  const queue = getRunQueue();
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    console.error("\ncancelling (Ctrl-C again to leave at once; the run then resumes on the next start)…");
    void cancelRun({ runId }).catch(() => undefined);
  };
  process.on("SIGINT", onSigint);
  if (queue.kind === "lease") getEngineWorker().schedule(runId);
  else {
    await queue.startWorkerLoop();
    await queue.enqueueRun(runId);
  }
  const run = await getDb().run.findUniqueOrThrow({ where: { id: runId }, select: { startedAt: true } });
  const startedAt = run.startedAt?.getTime() ?? Date.now();
  let seq = afterSeq;
  let status = "";
  try {
    while (!status) {
      const events = await listRunEvents({ runId, afterSeq: seq });
      for (const e of events) {
        seq = e.seq;
        const line = progressLine(e, startedAt, verbose);
        if (line) console.log(line);
        if (e.type === "run.finished") status = String(e.data.status);
      }
      if (!status) await new Promise((r) => setTimeout(r, 250));
    }
    if (queue.kind === "lease") await queue.drain();
    else await queue.stop({ handOver: true });
  } finally {
    process.off("SIGINT", onSigint);
  }
  return status === "succeeded" ? 0 : 1;
}
