// bootdeck cluster delete NAME: removes a saved cluster with its runs, backups and pinned host keys
// from the dashboard's database, as the cluster page's Delete does; its hosts are not touched. The
// name is the confirmation, typed at the prompt (--yes skips it). Refused while a run is in progress.
// bootdeck cluster report NAME FILE: records a conformance or CIS benchmark report, as the cluster
// page's upload does.
import { readFile } from "node:fs/promises";
import { recordAudit } from "../../lib/audit/record";
import { deleteCluster, findClusterIdByName } from "../../lib/clusters/repository";
import { REPORT_LIMIT, recordReport } from "../../lib/hardening/report-store";
import { configureDb, disconnectDb } from "../../lib/db/client";
import { AppError, ValidationError } from "../../lib/http/errors";
import type { Command } from "./command";
import { ask, cliActor } from "./terminal";

const help = `Usage: bootdeck cluster delete NAME [--yes] [--if-exists]
       bootdeck cluster report NAME FILE

Deletes the cluster NAME from the dashboard's database: its definition, stored credentials, rendered
assets, runs and their event log, backups (the backup scheduler removes their files on its next
pass) and pinned host keys. Nothing on its hosts changes. Asks you to type the name; --yes skips the
question. --if-exists succeeds when there is no such cluster. Refused while a run is in progress.

report records a report of a suite run against the cluster NAME, and the cluster page shows its
summary: upstream's conformance suite (ginkgo's or sonobuoy's JUnit XML), or the CIS Kubernetes
Benchmark (kube-bench's --json output, or Trivy's compliance summary: trivy k8s --compliance
k8s-cis-1.23 --report summary --format json). docs/hardening.md says how each is run.`;

export const cluster: Command = {
  async run(argv) {
    const [sub, name, file] = argv.filter((a) => !a.startsWith("--"));
    if ((sub !== "delete" && sub !== "report") || !name || (sub === "report" && !file) || argv.includes("--help")) {
      console.log(help);
      return argv.includes("--help") ? 0 : 2;
    }
    await configureDb();
    try {
      const id = await findClusterIdByName({ name });
      if (!id) {
        if (argv.includes("--if-exists")) return 0;
        throw new AppError(1, "not_found", `no cluster named "${name}"`);
      }
      if (sub === "report" && file) return await report(id, name, file);
      let typed = name;
      if (!argv.includes("--yes")) {
        if (!process.stdin.isTTY) throw new AppError(2, "usage", "not confirmed; pass --yes to delete without a terminal");
        typed = await ask(`Type the cluster's name, ${name}, to delete it from the database: `);
      }
      await deleteCluster({ id, confirmName: typed });
      await recordAudit({ action: "cluster.delete", username: cliActor(), target: id, details: { via: "cli", name } });
      console.log(`deleted cluster ${name} (${id}) from the database; its hosts were not touched`);
      return 0;
    } catch (err) {
      if (err instanceof AppError) {
        const problems = err instanceof ValidationError ? err.errors.map((e) => e.message) : [err.message];
        for (const p of problems) console.error(`bootdeck cluster: ${p}`);
        return err.status === 2 ? 2 : 1;
      }
      throw err;
    } finally {
      await disconnectDb();
    }
  },
};

async function report(clusterId: string, name: string, file: string): Promise<number> {
  let text: string;
  try {
    const bytes = await readFile(file);
    if (bytes.byteLength > REPORT_LIMIT) throw new AppError(1, "too_large", `${file} is ${bytes.byteLength} bytes; a report is read up to ${REPORT_LIMIT} bytes`);
    text = bytes.toString("utf8");
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw new AppError(1, "unreadable", `cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const r = await recordReport({ clusterId, text, user: { username: cliActor() }, via: "cli" });
  const more = r.kind === "conformance" ? `${r.skipped} not run` : r.tool === "kube-bench" ? `${r.warned} WARN, ${r.skipped} INFO` : `${r.warned} manual`;
  console.log(`recorded for ${name}: ${r.title}: ${r.passed} passed, ${r.failed} failed, ${more}`);
  for (const f of r.failures.slice(0, 10)) console.log(`  failed: ${f.id}${f.message ? `: ${f.message}` : ""}`);
  if (r.failed > 10) console.log(`  … and ${r.failed - 10} more (the cluster page lists ${r.failures.length})`);
  return 0;
}
