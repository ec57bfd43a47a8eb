// bootdeck host repin CLUSTER HOST: after a host was legitimately reinstalled, show the pinned host key
// and the one the host offers now, and pin the new one once you confirm it (compare it out of band:
// on the host, ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub). Recorded in the audit log as
// "cli:<your login>", and on the host as who confirmed it.
import { recordAudit } from "../../lib/audit/record";
import { findClusterIdByName } from "../../lib/clusters/repository";
import { configureDb, disconnectDb } from "../../lib/db/client";
import { probeHostKey, repinHostKey } from "../../lib/engine/host-keys";
import { AppError } from "../../lib/http/errors";
import type { Command } from "./command";
import { confirm, cliActor } from "./terminal";

const help = `Usage: bootdeck host repin CLUSTER HOST [--yes]

Reads the SSH host key HOST offers now (the connection stops at the key exchange: no credential is
sent), shows it next to the pinned one, and pins it once you confirm. --yes confirms without asking
(the fingerprints are printed all the same).`;



export const host: Command = {
  async run(argv) {
    const [sub, cluster, name] = argv.filter((a) => !a.startsWith("--"));
    if (sub !== "repin" || !cluster || !name || argv.includes("--help")) {
      console.log(help);
      return argv.includes("--help") ? 0 : 2;
    }
    await configureDb();
    try {
      const clusterId = await findClusterIdByName({ name: cluster });
      if (!clusterId) throw new AppError(1, "not_found", `no cluster named "${cluster}"`);
      const probe = await probeHostKey({ clusterId, host: name });
      console.log(`${name} (${probe.address}:${probe.port})\n  pinned:  ${probe.pinned ?? "(none)"}\n  offered: ${probe.offered}`);
      if (probe.matches) {
        console.log("the host offers the pinned key; nothing to do");
        return 0;
      }
      if (!argv.includes("--yes")) {
        if (!process.stdin.isTTY) throw new AppError(2, "usage", "not confirmed; pass --yes to re-pin without a terminal");
        if (!(await confirm(`Pin ${probe.offered} for ${name}? Check it on the host first. [y/N] `))) return 1;
      }
      const by = cliActor();
      const r = await repinHostKey({ clusterId, host: name, fingerprint: probe.offered, previous: probe.pinned, by });
      await recordAudit({ action: "host.repin", username: by, target: clusterId, details: { via: "cli", host: name, previous: r.previous, pinned: r.pinned } });
      console.log(`pinned ${r.pinned} for ${name} (was ${r.previous ?? "none"})`);
      return 0;
    } catch (err) {
      if (err instanceof AppError) {
        console.error(`bootdeck host: ${err.message}`);
        return err.status === 2 ? 2 : 1;
      }
      throw err;
    } finally {
      await disconnectDb();
    }
  },
};
