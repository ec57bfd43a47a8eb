// bootdeck cluster delete NAME: removes a saved cluster with its runs, backups and pinned host keys
// from the dashboard's database, as the cluster page's Delete does; its hosts are not touched. The
// name is the confirmation, typed at the prompt (--yes skips it). Refused while a run is in progress.
import { recordAudit } from "../../lib/audit/record";
import { deleteCluster, findClusterIdByName } from "../../lib/clusters/repository";
import { configureDb, disconnectDb } from "../../lib/db/client";
import { AppError, ValidationError } from "../../lib/http/errors";
import type { Command } from "./command";
import { ask, cliActor } from "./terminal";

const help = `Usage: bootdeck cluster delete NAME [--yes] [--if-exists]

Deletes the cluster NAME from the dashboard's database: its definition, stored credentials, rendered
assets, runs and their event log, backups (the backup scheduler removes their files on its next
pass) and pinned host keys. Nothing on its hosts changes. Asks you to type the name; --yes skips the
question. --if-exists succeeds when there is no such cluster. Refused while a run is in progress.`;

export const cluster: Command = {
  async run(argv) {
    const [sub, name] = argv.filter((a) => !a.startsWith("--"));
    if (sub !== "delete" || !name || argv.includes("--help")) {
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
