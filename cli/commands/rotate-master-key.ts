import { userInfo } from "node:os";
import { recordAudit } from "../../lib/audit/record";
import { configureDb, disconnectDb } from "../../lib/db/client";
import { getEnv } from "../../lib/env";
import { rotateMasterKey } from "../../lib/secrets/rotate";
import type { Command } from "./command";

const help = `Usage: bootdeck rotate-master-key [--new-key-file FILE]

Re-encrypts every stored secret (SSH keys, passwords, passphrases, rendered private keys and tokens)
under a new master key in one database transaction, then replaces the key file:
  - key file (default data/master.key): a new key is generated (or read from --new-key-file), written to
    master.key.new, the database is re-sealed, the old key is kept as master.key.old-<date> (mode 0600)
    and master.key.new is renamed over master.key. If the command is interrupted, run it again: it
    finishes the same rotation. Delete master.key.old-* once your backups no longer need it.
  - BOOTDECK_MASTER_KEY: --new-key-file is required (openssl rand -base64 32 > FILE; chmod 600 FILE).
    Stop the dashboard first; afterwards set BOOTDECK_MASTER_KEY to the file's content and start it.`;

export const rotateMasterKeyCommand: Command = {
  async run(argv) {
    if (argv.includes("--help") || argv.includes("-h")) {
      console.log(help);
      return 0;
    }
    let newKeyFile: string | undefined;
    for (let i = 0; i < argv.length; i++) {
      const a = argv[i]!;
      if (a === "--new-key-file" && argv[i + 1]) newKeyFile = argv[++i];
      else if (a.startsWith("--new-key-file=")) newKeyFile = a.slice("--new-key-file=".length);
      else {
        console.error(`rotate-master-key: unexpected argument "${a}"\n\n${help}`);
        return 2;
      }
    }
    getEnv();
    await configureDb();
    try {
      const r = await rotateMasterKey({ newKeyFile });
      await recordAudit({
        action: "secrets.rotate_master_key",
        username: `cli:${userInfo().username}`,
        details: { oldKeyId: r.oldKeyId, newKeyId: r.newKeyId, credentials: r.credentials, assets: r.assets, backups: r.backups, webhooks: r.webhooks, resumed: r.resumed, source: r.source },
      });
      console.log(
        `rotate-master-key: ${r.resumed ? "finished an interrupted rotation; " : ""}re-sealed ${r.credentials} credential(s), ${r.assets} sensitive asset(s), the keys of ${r.backups} backup(s) and ${r.webhooks} webhook secret(s): key ${r.oldKeyId} → ${r.newKeyId}`,
      );
      if (r.source === "file") {
        console.log(`rotate-master-key: ${r.keyFile} now holds key ${r.newKeyId}`);
        if (r.retiredKeyFile) console.log(`rotate-master-key: the old key is kept in ${r.retiredKeyFile} (0600); delete it once no backup needs it`);
      } else console.log(`rotate-master-key: now set BOOTDECK_MASTER_KEY to the content of ${newKeyFile} and restart the dashboard`);
      return 0;
    } finally {
      await disconnectDb();
    }
  },
};
