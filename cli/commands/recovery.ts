// bootdeck restore / recover: the disaster-recovery runs from the command line. Each prints its plan,
// asks (or takes --yes), and runs here with one line per step, as bootdeck apply does.
import { recordAudit } from "../../lib/audit/record";
import { findClusterIdByName } from "../../lib/clusters/repository";
import { disconnectDb } from "../../lib/db/client";
import type { DrRunBody } from "../../lib/engine/dr-schemas";
import { planRun } from "../../lib/engine/plan-run";
import { getRunPlan, startRun } from "../../lib/engine/runs";
import { AppError } from "../../lib/http/errors";
import { follow, planText } from "./apply";
import type { Command } from "./command";
import { confirm, cliActor } from "./terminal";



/** Plans the run, prints the plan, asks, starts and follows it. */
async function runDr(argv: string[], usage: string, body: (rest: string[]) => DrRunBody | undefined, warning: string): Promise<number> {
  const [name, ...rest] = argv;
  const b = name && !name.startsWith("-") ? body(rest) : undefined;
  if (!name || argv.includes("--help") || !b) {
    console.log(usage);
    return argv.includes("--help") ? 0 : 2;
  }
  const verbose = rest.includes("--verbose");
  try {
    const clusterId = await findClusterIdByName({ name });
    if (!clusterId) {
      console.error(`no cluster named "${name}"`);
      return 1;
    }
    const runId = await planRun({ clusterId, body: b, by: cliActor() });
    await recordAudit({ action: "run.plan", username: cliActor(), target: runId, details: { clusterId, type: b.type, via: "cli" } });
    console.log(planText(await getRunPlan(runId)));
    if (!rest.includes("--yes")) {
      if (!process.stdin.isTTY) {
        console.error("not confirmed; pass --yes to run without a terminal");
        return 2;
      }
      if (!(await confirm(`\n${warning}\nRun this plan on cluster ${name}? [y/N] `))) {
        console.log(`not started; the plan stays as run ${runId}`);
        return 1;
      }
    }
    await startRun({ runId });
    await recordAudit({ action: "run.start", username: cliActor(), target: runId, details: { via: "cli", type: b.type } });
    return await follow(runId, verbose);
  } catch (err) {
    if (err instanceof AppError) {
      console.error(`bootdeck ${b.type}: ${err.message}`);
      return 1;
    }
    throw err;
  } finally {
    await disconnectDb();
  }
}

export const restore: Command = {
  run: (argv) =>
    runDr(
      argv,
      `Usage: bootdeck restore CLUSTER BACKUP-ID [--yes] [--verbose]

Copies the snapshot to every master, stops the control plane, restores each etcd member (same names and
peer URLs, a new cluster token), starts etcd, and brings the control plane back (a self-hosted one
through a temporary control plane and the pivot). Everything written since the snapshot is lost; the
API is down while it runs. List backups with: bootdeck backup list CLUSTER`,
      (rest) => (rest[0] && !rest[0].startsWith("-") ? { type: "restore", backup: rest[0], confirm: true } : undefined),
      "The API is down while the restore runs, and everything written since the snapshot is lost.",
    ),
};

export const recover: Command = {
  run: (argv) =>
    runDr(
      argv,
      `Usage: bootdeck recover CLUSTER [--yes] [--verbose]

For a control plane that did not come back by itself (after every master restarted): starts the
kubelets, checks etcd has a healthy quorum, then a temporary control plane on the first master from
etcd's current state and the pivot again, as the bootstrap does.`,
      () => ({ type: "recover", confirm: true }),
      "A temporary control plane starts on the first master until the self-hosted one runs again.",
    ),
};

export const rotateCerts: Command = {
  run: (argv) =>
    runDr(
      argv,
      `Usage: bootdeck rotate-certs CLUSTER [--days N] [--yes] [--verbose]

Renders a renewed asset set (the CAs, keys and bootstrap token kept; every leaf certificate issued
again, valid N days, by default as long as the cluster's were) and rolls it out: etcd one member at a
time, the API servers' certificates (served at once, reloaded from disk), each master's control plane
restarted beside a temporary API server, the kubelets one at a time (workers get new client
certificates through CSRs), then every host read again. Expiry: bootdeck certs CLUSTER [--live]`,
      (rest) => {
        const i = rest.indexOf("--days");
        const days = i >= 0 ? Number(rest[i + 1]) : undefined;
        if (days !== undefined && !(Number.isInteger(days) && days > 0)) return undefined;
        return { type: "rotate-certs", confirm: true, ...(days ? { leafValidityDays: days } : {}) };
      },
      "A new asset set is saved now; the run rolls it out one component at a time.",
    ),
};

export const rotateEncryptionKey: Command = {
  run: (argv) =>
    runDr(
      argv,
      `Usage: bootdeck rotate-encryption-key CLUSTER [--yes] [--verbose]

Gives Secrets at rest a new key without restarting an API server: every API server reads with the new
key, then writes with it; every Secret is written again (etcd is then read to prove each is stored with
it); the old keys are dropped; every Secret read back. The API stays up. The key itself is kept
encrypted in Bootdeck's database, never shown.`,
      (rest) => (rest.every((a) => a === "--yes" || a === "--verbose") ? { type: "rotate-encryption-key", confirm: true } : undefined),
      "A new asset set with the new key is saved now; the run rolls it out one configuration at a time.",
    ),
};

export const certs: Command = {
  async run(argv) {
    const [name, ...rest] = argv;
    if (!name || name === "--help") {
      console.log("Usage: bootdeck certs CLUSTER [--live]\n\nEvery certificate and when it ends, soonest first; ! marks those ending within 30 days.");
      return name ? 0 : 2;
    }
    const { assetCertificates } = await import("../../lib/certs/expiry");
    const { readLiveCertificates } = await import("../../lib/engine/cert-expiry");
    try {
      const clusterId = await findClusterIdByName({ name });
      if (!clusterId) {
        console.error(`no cluster named "${name}"`);
        return 1;
      }
      if (rest.includes("--live")) {
        await recordAudit({ action: "certificates.read", username: cliActor(), target: clusterId, details: { via: "cli" } });
        const live = await readLiveCertificates({ clusterId });
        for (const r of live.rows) console.log(`${r.warn ? "!" : " "} ${r.notAfter.slice(0, 10)} ${String(r.daysLeft).padStart(5)} d  ${(r.host ?? "").padEnd(10)} ${r.source.padEnd(48)} ${r.serial}  ${r.subject}`);
        for (const e of live.errors) console.log(`  could not read on ${e.host}: ${e.error}`);
        return live.rows.some((r) => r.warn) ? 3 : 0;
      }
      const set = await assetCertificates({ clusterId });
      console.log(`asset set v${set.assetSetVersion ?? "-"}`);
      for (const r of set.rows) console.log(`${r.warn ? "!" : " "} ${r.notAfter.slice(0, 10)} ${String(r.daysLeft).padStart(5)} d  ${r.source.padEnd(36)} ${r.subject}`);
      return set.rows.some((r) => r.warn) ? 3 : 0;
    } finally {
      await disconnectDb();
    }
  },
};
