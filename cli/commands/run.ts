// bootdeck run: look at runs and take a stuck one out of the way from the command line, as an admin
// does on the run page. Every change is recorded in the audit log as made by "cli:<your login>".
import { recordAudit } from "../../lib/audit/record";
import { configureDb, disconnectDb, getDb } from "../../lib/db/client";
import { releaseRun, retryRun } from "../../lib/engine/runs";
import { follow } from "./apply";
import { cancelRun } from "../../lib/engine/start";
import { AppError } from "../../lib/http/errors";
import type { Command } from "./command";
import { confirm, cliActor } from "./terminal";

const help = `Usage: bootdeck run <subcommand>

  run list [--cluster NAME]          running and planned runs: id, cluster, type, worker, last heartbeat
  run release RUN [--reason TEXT] [--yes]
                                     end a stuck running run: it fails as "released by cli:<you>",
                                     the cluster is free for a new run, its worker writes nothing more
  run cancel RUN                     cancel a planned run (it ends) or ask a running one to stop
  run retry RUN [--verbose]          run a failed, stopped or cancelled run's failures again, here,
                                     one line per step (as on the run page)`;


function flag(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

const ago = (d: Date | null) => (d ? `${Math.round((Date.now() - d.getTime()) / 1000)} s ago` : "never");


export const run: Command = {
  async run(argv) {
    const [sub, id, ...rest] = argv;
    if (!sub || sub === "--help" || sub === "-h" || argv.includes("--help")) {
      console.log(help);
      return sub ? 0 : 2;
    }
    await configureDb();
    try {
      if (sub === "list") {
        const cluster = flag(argv, "--cluster");
        const runs = await getDb().run.findMany({
          where: { status: { in: ["planned", "running"] }, ...(cluster ? { cluster: { name: cluster } } : {}) },
          include: { cluster: { select: { name: true } } },
          orderBy: { createdAt: "asc" },
        });
        if (!runs.length) console.log("no planned or running runs");
        for (const r of runs) console.log(`${r.id}  ${r.cluster.name}  ${r.type}  ${r.status}  worker ${r.workerId ?? "none"}  heartbeat ${ago(r.heartbeatAt)}`);
        return 0;
      }
      if (!id) throw new AppError(2, "usage", `give the run's id: bootdeck run ${sub} RUN`);
      if (sub === "release") {
        const r = await getDb().run.findUnique({ where: { id }, include: { cluster: { select: { name: true } } } });
        if (!r) throw new AppError(1, "not_found", `no run ${id}`);
        console.log(`run ${r.id} (${r.type} of ${r.cluster.name}) is ${r.status}; worker ${r.workerId ?? "none"}, last heartbeat ${ago(r.heartbeatAt)}`);
        if (!rest.includes("--yes")) {
          if (!process.stdin.isTTY) throw new AppError(2, "usage", "not confirmed; pass --yes to release without a terminal");
          if (!(await confirm("Release it? It ends as failed and the cluster is free for a new run. [y/N] "))) return 1;
        }
        const reason = flag(argv, "--reason");
        const by = cliActor();
        const out = await releaseRun({ runId: id, by, reason });
        await recordAudit({ action: "run.release", username: by, target: id, details: { via: "cli", reason: reason ?? null, previousWorker: out.previousWorker } });
        console.log(`released: run ${id} is ${out.status}`);
        return 0;
      }
      if (sub === "cancel") {
        const by = cliActor();
        const outcome = await cancelRun({ runId: id, by });
        await recordAudit({ action: "run.cancel", username: by, target: id, details: { via: "cli", outcome } });
        console.log(outcome === "cancelled" ? `run ${id} is cancelled` : `run ${id} was asked to stop; its worker stops between steps`);
        return 0;
      }
      if (sub === "retry") {
        const by = cliActor();
        const before = await getDb().run.findUnique({ where: { id }, select: { lastSeq: true } });
        if (!before) throw new AppError(1, "not_found", `no run ${id}`);
        const steps = await retryRun({ runId: id });
        await recordAudit({ action: "run.retry", username: by, target: id, details: { via: "cli", steps } });
        console.log(`retrying ${steps} step${steps === 1 ? "" : "s"} of run ${id}`);
        return await follow(id, rest.includes("--verbose"), before.lastSeq);
      }
      console.error(`bootdeck run: unknown subcommand "${sub}"\n\n${help}`);
      return 2;
    } catch (err) {
      if (err instanceof AppError) {
        console.error(`bootdeck run: ${err.message}`);
        return err.status === 2 ? 2 : 1;
      }
      throw err;
    } finally {
      await disconnectDb();
    }
  },
};
