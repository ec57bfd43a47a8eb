import "server-only";
// Master-key rotation: every sealed value in the database (Credential secrets and passphrases,
// sensitive Asset contents, the data keys of stored backups, clusters' backup keys, buckets' secret keys,
// webhook signing secrets) is opened and sealed again under a new key in ONE transaction, then the
// key file is replaced. The order makes a crash at any point recoverable:
//   1. the new key is written to master.key.new (temp file, fsync, rename): the DB still uses the old key;
//   2. the DB transaction re-seals everything: before commit nothing changed, after it every record
//      names the new key, which master.key.new holds (the key ring finds it);
//   3. the old key is copied to master.key.old-<date> (0600) and master.key.new is renamed over
//      master.key (atomic).
// Running the command again after a crash resumes with master.key.new and finishes the job.
// When the key comes from BOOTDECK_MASTER_KEY, the process cannot change the variable: the new key
// must be given as a file, and the operator switches the variable afterwards (stop the dashboard first).
import { closeSync, copyFileSync, existsSync, fchmodSync, fsyncSync, openSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { getDb } from "../db/client";
import { getEnv } from "../env";
import { decryptSecret, encryptSecret, isCurrentFormat, sealedKeyId, secretContexts, type SecretContext } from "./cipher";
import {
  generateMasterKey,
  getMasterKey,
  masterKeySource,
  masterKeyText,
  pendingKeyFile,
  readKeyFile,
  resetMasterKeyCache,
  type MasterKey,
} from "./master-key";

export type RotationResult = {
  oldKeyId: string;
  newKeyId: string;
  credentials: number;
  assets: number;
  /** Backups whose data key was sealed again (their files are not rewritten). */
  backups: number;
  /** Webhook endpoints whose signing secret was sealed again. */
  webhooks: number;
  resumed: boolean;
  source: "env" | "file";
  keyFile?: string;
  retiredKeyFile?: string;
};

/** Test hook: lets a test stop the rotation between the steps above. */
export type RotationHooks = { afterPendingWritten?(): void; afterCommit?(): void };

export async function rotateMasterKey(input: { newKeyFile?: string; now?: Date; hooks?: RotationHooks } = {}): Promise<RotationResult> {
  resetMasterKeyCache();
  const env = getEnv();
  const source = masterKeySource();
  const current = getMasterKey();
  const pending = pendingKeyFile();
  let next: MasterKey;
  let resumed = false;
  if (input.newKeyFile) {
    next = readKeyFile(input.newKeyFile);
    if (source === "file" && existsSync(pending) && readKeyFile(pending).id !== next.id)
      throw new Error(`an earlier rotation to key ${readKeyFile(pending).id} did not finish (${pending} exists); run the command without --new-key-file to finish it first`);
    resumed = source === "file" && existsSync(pending);
  } else if (source === "env") throw new Error("the master key comes from BOOTDECK_MASTER_KEY: give the new key with --new-key-file FILE (openssl rand -base64 32 > FILE; chmod 600 FILE)");
  else if (existsSync(pending)) {
    next = readKeyFile(pending);
    resumed = true;
  } else next = generateMasterKey();
  if (next.id === current.id && !resumed) throw new Error(`the new key is the current key (${current.id})`);

  // 1. The new key on disk before any record depends on it.
  if (source === "file" && !resumed) writeFileAtomic(pending, masterKeyText(next));
  input.hooks?.afterPendingWritten?.();

  // 2. One transaction re-seals every record, bound to its row and field (v2); records already so
  // under the new key are left alone. v1 records (sealed before values carried their row) open without it.
  const reseal = (sealed: string, at: SecretContext) => (sealedKeyId(sealed) === next.id && isCurrentFormat(sealed) ? sealed : encryptSecret(decryptSecret(sealed, at), at, next));
  let credentials = 0;
  let assets = 0;
  let backups = 0;
  let webhooks = 0;
  await getDb().$transaction(
    async (tx) => {
      const creds = await tx.credential.findMany({ select: { id: true, clusterId: true, name: true, secretCipher: true, passphraseCipher: true } });
      for (const c of creds) {
        if (!c.secretCipher && !c.passphraseCipher) continue;
        await tx.credential.update({
          where: { id: c.id },
          data: {
            secretCipher: c.secretCipher && reseal(c.secretCipher, secretContexts.credential(c.clusterId, c.name, "secretCipher")),
            passphraseCipher: c.passphraseCipher && reseal(c.passphraseCipher, secretContexts.credential(c.clusterId, c.name, "passphraseCipher")),
          },
        });
        credentials++;
      }
      const rows = await tx.asset.findMany({ where: { sensitive: true }, select: { id: true, content: true } });
      for (const a of rows) {
        await tx.asset.update({ where: { id: a.id }, data: { content: reseal(a.content, secretContexts.asset(a.id)) } });
        assets++;
      }
      // Backups: each file's data key is sealed with the master key; the files themselves stay as they are.
      for (const b of await tx.backup.findMany({ select: { id: true, keyCipher: true } })) {
        await tx.backup.update({ where: { id: b.id }, data: { keyCipher: reseal(b.keyCipher, secretContexts.backupKey(b.id)) } });
        backups++;
      }
      // Each cluster's backup key and its bucket's secret key (counted with the credentials).
      for (const c of await tx.cluster.findMany({ where: { backupKeyCipher: { not: null } }, select: { id: true, backupKeyCipher: true } })) {
        await tx.cluster.update({ where: { id: c.id }, data: { backupKeyCipher: reseal(c.backupKeyCipher!, secretContexts.clusterBackupKey(c.id)) } });
        credentials++;
      }
      for (const t of await tx.backupTarget.findMany({ select: { clusterId: true, secretKeyCipher: true } })) {
        await tx.backupTarget.update({ where: { clusterId: t.clusterId }, data: { secretKeyCipher: reseal(t.secretKeyCipher, secretContexts.bucketSecret(t.clusterId)) } });
        credentials++;
      }
      // Webhook endpoints' signing secrets.
      for (const w of await tx.webhookEndpoint.findMany({ select: { id: true, secretCipher: true } })) {
        await tx.webhookEndpoint.update({ where: { id: w.id }, data: { secretCipher: reseal(w.secretCipher, secretContexts.webhookSecret(w.id)) } });
        webhooks++;
      }
    },
    { maxWait: 30_000, timeout: 10 * 60_000 },
  );
  input.hooks?.afterCommit?.();

  // 3. Retire the old key and put the new one in place.
  const result: RotationResult = { oldKeyId: current.id, newKeyId: next.id, credentials, assets, backups, webhooks, resumed, source };
  if (source === "file") {
    const file = env.masterKeyFile;
    if (readKeyFile(file).id !== next.id) {
      const stamp = (input.now ?? new Date()).toISOString().replace(/[:.]/g, "-");
      const retired = `${file}.old-${stamp}`;
      copyFileSync(file, retired);
      fsyncFile(retired, 0o600);
      result.retiredKeyFile = retired;
    }
    renameSync(pending, file);
    fsyncDir(path.dirname(file));
    result.keyFile = file;
  }
  resetMasterKeyCache();
  return result;
}

function writeFileAtomic(file: string, text: string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, text, { mode: 0o600, flag: "w" });
  fsyncFile(tmp, 0o600);
  renameSync(tmp, file);
  fsyncDir(path.dirname(file));
}

function fsyncFile(file: string, mode: number): void {
  const fd = openSync(file, "r+");
  try {
    // copyFileSync keeps the source's mode; make sure a retired key is never wider than 0600.
    fchmodSync(fd, mode);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function fsyncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
