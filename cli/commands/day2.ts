// bootdeck nodes add|remove and bootdeck upgrade: the cluster page's day-2 runs, headless. Each plans
// the run, prints the plan, and (confirmed, or with --yes) runs it here with one line per step, as
// bootdeck apply does.
import { recordAudit } from "../../lib/audit/record";
import { findClusterIdByName } from "../../lib/clusters/repository";
import { disconnectDb } from "../../lib/db/client";
import { planRun } from "../../lib/engine/plan-run";
import { pauseRun, resumeRun } from "../../lib/engine/run-control";
import { getRunPlan, startRun } from "../../lib/engine/runs";
import { createRunBody, type CreateRunBody } from "../../lib/engine/schemas";
import { AppError } from "../../lib/http/errors";
import { follow, planText } from "./apply";
import type { Command } from "./command";
import { cliActor, confirm } from "./terminal";


function option(args: string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  if (i < 0) return undefined;
  const v = args[i + 1];
  if (v === undefined || v.startsWith("--")) throw new AppError(400, "usage", `${flag} needs a value`);
  args.splice(i, 2);
  return v;
}

function flag(args: string[], name: string): boolean {
  const i = args.indexOf(name);
  if (i < 0) return false;
  args.splice(i, 1);
  return true;
}

/** Plans `body` on the named cluster, prints the plan, and runs it once confirmed. */
async function planConfirmRun(clusterName: string, raw: unknown, opts: { yes: boolean; verbose: boolean; dryRun: boolean }): Promise<number> {
  const parsed = createRunBody.safeParse(raw);
  if (!parsed.success) throw new AppError(400, "usage", parsed.error.issues.map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`).join("; "));
  const body: CreateRunBody = parsed.data;
  const clusterId = await findClusterIdByName({ name: clusterName });
  if (!clusterId) throw new AppError(404, "not_found", `no cluster named ${clusterName} (bootdeck import it first)`);
  const runId = await planRun({ clusterId, body, by: cliActor() });
  await recordAudit({ action: "run.plan", username: cliActor(), target: runId, details: { clusterId, ...body, via: "cli" } });
  console.log(planText(await getRunPlan(runId)));
  if (opts.dryRun) {
    console.log(`\ndry run: nothing was changed. The plan is saved as run ${runId}; confirm it in the dashboard, or run this again with --yes.`);
    return 0;
  }
  if (!opts.yes) {
    if (!process.stdin.isTTY) {
      console.error("not confirmed; pass --yes to run without a terminal");
      return 2;
    }
    if (!(await confirm(`\nRun this plan on cluster ${clusterName}? [y/N] `))) {
      console.log(`not started; the plan stays as run ${runId}`);
      return 1;
    }
  }
  await startRun({ runId });
  await recordAudit({ action: "run.start", username: cliActor(), target: runId, details: { via: "cli" } });
  return follow(runId, opts.verbose);
}

async function guarded(name: string, fn: () => Promise<number>): Promise<number> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError) {
      console.error(`bootdeck ${name}: ${err.message}`);
      return err.status === 400 ? 2 : 1;
    }
    throw err;
  } finally {
    await disconnectDb();
  }
}

const NODES_USAGE = `Usage: bootdeck nodes add CLUSTER HOST... [--yes] [--accept-warnings] [--dry-run] [--verbose]
       bootdeck nodes remove CLUSTER HOST... [--no-reset] [--drain-timeout SECONDS] [--yes] [--dry-run] [--verbose]

add     joins hosts of the cluster's definition (add them there first: bootdeck import --replace): workers
        join with the bootstrap token; masters join etcd one at a time (a learner, promoted once caught up,
        quorum checked before and after), then the control plane learns them.
remove  takes hosts out: the quorum guard, each master's etcd member, cordon and drain (disruption budgets
        respected; --drain-timeout, default 300 s, then what blocked is reported), the Node, the host reset
        (--no-reset when the host is gone for good), and the hosts out of the definition. Admins only in
        the dashboard.`;

export const nodes: Command = {
  async run(argv) {
    const args = [...argv];
    if (args.includes("--help") || args.length < 3) {
      console.log(NODES_USAGE);
      return args.includes("--help") ? 0 : 2;
    }
    return guarded("nodes", async () => {
      const opts = { yes: flag(args, "--yes"), verbose: flag(args, "--verbose"), dryRun: flag(args, "--dry-run") };
      const acceptWarnings = flag(args, "--accept-warnings");
      const noReset = flag(args, "--no-reset");
      const drain = option(args, "--drain-timeout");
      const [action, cluster, ...hosts] = args;
      if (action === "add") return planConfirmRun(cluster!, { type: "join", hosts, ...(acceptWarnings ? { acceptWarnings } : {}) }, opts);
      if (action === "remove")
        return planConfirmRun(cluster!, { type: "remove", hosts, confirm: true, ...(noReset ? { reset: false } : {}), ...(drain ? { drainTimeoutSeconds: Number(drain) } : {}) }, opts);
      console.log(NODES_USAGE);
      return 2;
    });
  },
};

const UPGRADE_USAGE = `Usage: bootdeck upgrade CLUSTER --version V [--masters N] [--workers N|P%] [--drain-timeout SECONDS] [--yes] [--dry-run] [--verbose]
       bootdeck upgrade pause RUN | resume RUN

Rolls the cluster to V (a patch, or the next minor): preflight on every host, the control plane first
(etcd one master at a time, API servers, controller-manager, scheduler, checkpoints, add-ons), then the
kubelets in batches (default: masters 1 at a time, workers 10%): cordon, drain, swap, Ready, uncordon; a
node that does not come back is rolled back and the upgrade stops. Ctrl-C aborts (cancels); running
bootdeck upgrade again plans anew, retrying the run (dashboard) goes on from the first node not done.
pause makes the upgrade stop before its next batch; resume lets it go on.`;

export const upgrade: Command = {
  async run(argv) {
    const args = [...argv];
    if (args.includes("--help") || args.length < 2) {
      console.log(UPGRADE_USAGE);
      return args.includes("--help") ? 0 : 2;
    }
    return guarded("upgrade", async () => {
      if (args[0] === "pause" || args[0] === "resume") {
        const runId = args[1] ?? "";
        if (args[0] === "pause") console.log((await pauseRun({ runId, by: cliActor() })).already ? `${runId} was paused already` : `${runId} stops before its next batch`);
        else console.log((await resumeRun({ runId, by: cliActor() })).wasPaused ? `${runId} goes on` : `${runId} was not paused`);
        await recordAudit({ action: `run.${args[0]}`, username: cliActor(), target: runId, details: { via: "cli" } });
        return 0;
      }
      const opts = { yes: flag(args, "--yes"), verbose: flag(args, "--verbose"), dryRun: flag(args, "--dry-run") };
      const version = option(args, "--version");
      const masters = option(args, "--masters");
      const workers = option(args, "--workers");
      const drain = option(args, "--drain-timeout");
      const [cluster] = args;
      if (!version || !cluster) {
        console.log(UPGRADE_USAGE);
        return 2;
      }
      return planConfirmRun(
        cluster,
        { type: "upgrade", version, ...(masters || workers ? { batches: { ...(masters ? { masters } : {}), ...(workers ? { workers } : {}) } } : {}), ...(drain ? { drainTimeoutSeconds: Number(drain) } : {}) },
        opts,
      );
    });
  },
};
