import "server-only";
// The master key that encrypts secrets at rest. It lives outside the database: in
// BOOTDECK_MASTER_KEY (base64) or in a key file with mode 0600 created by `bootdeck setup`.
//
// Every sealed value names the key that sealed it (lib/secrets/cipher.ts), so decryption looks the
// key up in a key ring: the current key, a rotation's pending key (`master.key.new`, present only
// while `bootdeck rotate-master-key` runs or after it crashed half-way) and retired keys
// (`master.key.old-<date>`). That is what makes rotation crash-safe: whichever side of the database
// commit a crash lands on, every record's key is on disk. New secrets are always sealed with the
// current key.
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { getEnv } from "../env";

export type MasterKey = { id: string; key: Buffer };

export function keyId(key: Buffer): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 8);
}

export function masterKeyFromBase64(text: string): MasterKey {
  const key = Buffer.from(text.trim(), "base64");
  if (key.length !== 32) throw new Error("a master key must be 32 bytes, base64-encoded");
  return { id: keyId(key), key };
}

export function generateMasterKey(): MasterKey {
  const key = randomBytes(32);
  return { id: keyId(key), key };
}

export function masterKeyText(key: MasterKey): string {
  return `${key.key.toString("base64")}\n`;
}

/** Reads a key file, refusing one that group or others can read. */
export function readKeyFile(file: string): MasterKey {
  const mode = statSync(file).mode & 0o777;
  if (mode & 0o077) throw new Error(`${file} is readable by others (mode ${mode.toString(8)}); run chmod 600 on it`);
  return masterKeyFromBase64(readFileSync(file, "utf8"));
}

export function pendingKeyFile(): string {
  return `${getEnv().masterKeyFile}.new`;
}

export function retiredKeyFiles(): string[] {
  const file = getEnv().masterKeyFile;
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}.old-`;
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => n.startsWith(prefix))
    .sort()
    .map((n) => path.join(dir, n));
}

// The key file is re-read when it changes (a rotation by the command line while the dashboard
// runs), so the server seals new secrets with the new key without a restart.
let cached: { key: MasterKey; stamp: string } | undefined;

export function getMasterKey(): MasterKey {
  const env = getEnv();
  if (env.BOOTDECK_MASTER_KEY) {
    if (cached?.stamp !== "env") cached = { key: masterKeyFromBase64(env.BOOTDECK_MASTER_KEY), stamp: "env" };
    return cached.key;
  }
  if (!existsSync(env.masterKeyFile))
    throw new Error(`No master key: set BOOTDECK_MASTER_KEY or run "bootdeck setup" to create ${env.masterKeyFile}`);
  const st = statSync(env.masterKeyFile);
  const stamp = `${st.ino}:${st.mtimeMs}:${st.size}`;
  if (cached?.stamp !== stamp) cached = { key: readKeyFile(env.masterKeyFile), stamp };
  return cached.key;
}

/** Where the current key comes from: the variable, or the key file. */
export function masterKeySource(): "env" | "file" {
  return getEnv().BOOTDECK_MASTER_KEY ? "env" : "file";
}

/** The key with this id: the current one, a pending rotation's, or a retired one. */
export function findMasterKey(id: string): MasterKey | undefined {
  const current = getMasterKey();
  if (current.id === id) return current;
  for (const file of [pendingKeyFile(), ...retiredKeyFiles()]) {
    if (!existsSync(file)) continue;
    const k = readKeyFile(file);
    if (k.id === id) return k;
  }
  return undefined;
}

/** Creates the key file when neither the variable nor the file exists. Returns true when it created one. */
export function ensureMasterKeyFile(): boolean {
  const env = getEnv();
  if (env.BOOTDECK_MASTER_KEY || existsSync(env.masterKeyFile)) return false;
  mkdirSync(path.dirname(env.masterKeyFile), { recursive: true, mode: 0o700 });
  writeFileSync(env.masterKeyFile, masterKeyText(generateMasterKey()), { mode: 0o600, flag: "wx" });
  return true;
}

export function resetMasterKeyCache(): void {
  cached = undefined;
}
