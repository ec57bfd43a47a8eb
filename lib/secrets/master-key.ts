import "server-only";
// The master key that encrypts secrets at rest. It lives outside the database: in
// BOOTDECK_MASTER_KEY (base64) or in a key file with mode 0600 created by `bootdeck setup`.
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
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

let cached: MasterKey | undefined;

export function getMasterKey(): MasterKey {
  if (cached) return cached;
  const env = getEnv();
  if (env.BOOTDECK_MASTER_KEY) return (cached = masterKeyFromBase64(env.BOOTDECK_MASTER_KEY));
  if (!existsSync(env.masterKeyFile))
    throw new Error(`No master key: set BOOTDECK_MASTER_KEY or run "bootdeck setup" to create ${env.masterKeyFile}`);
  const mode = statSync(env.masterKeyFile).mode & 0o777;
  if (mode & 0o077) throw new Error(`${env.masterKeyFile} is readable by others (mode ${mode.toString(8)}); run chmod 600 on it`);
  return (cached = masterKeyFromBase64(readFileSync(env.masterKeyFile, "utf8")));
}

/** Creates the key file when neither the variable nor the file exists. Returns true when it created one. */
export function ensureMasterKeyFile(): boolean {
  const env = getEnv();
  if (env.BOOTDECK_MASTER_KEY || existsSync(env.masterKeyFile)) return false;
  mkdirSync(path.dirname(env.masterKeyFile), { recursive: true, mode: 0o700 });
  writeFileSync(env.masterKeyFile, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  return true;
}

export function resetMasterKeyCache(): void {
  cached = undefined;
}
