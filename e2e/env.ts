// The browser tests' own server: a fresh data directory, a known admin password, loopback only.
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

// Two runs side by side (the suites that start lab hosts beside the others) take different ports: the
// server's, and a few above it (a proxy at +2, a second instance pair at +10 and +11).
export const e2ePort = Number(process.env.BOOTDECK_E2E_PORT ?? 3217);
export const e2eAdminPassword = "e2e-admin-password";

const dataDir = process.env.BOOTDECK_E2E_DATA_DIR ?? mkdtempSync(path.join(tmpdir(), "bootdeck-e2e-"));
process.env.BOOTDECK_E2E_DATA_DIR = dataDir;

export const e2eEnv: Record<string, string> = {
  BOOTDECK_DATA_DIR: dataDir,
  DATABASE_URL: `file:${path.join(dataDir, "bootdeck.db")}`,
  BOOTDECK_MASTER_KEY: process.env.BOOTDECK_E2E_MASTER_KEY ?? (process.env.BOOTDECK_E2E_MASTER_KEY = randomBytes(32).toString("base64")),
  BOOTDECK_ADMIN_PASSWORD: e2eAdminPassword,
  NEXT_TELEMETRY_DISABLED: "1",
};
