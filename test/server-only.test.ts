// Modules that reach the database, the master key, decrypted secrets, the environment or SSH carry
// `import "server-only"`, so a client component that imports one by mistake fails the build instead
// of shipping it to the browser.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";

const root = path.resolve(__dirname, "..");
const holdsSecrets = /getDb\(|decryptSecret\(|encryptSecret\(|getMasterKey\(|findMasterKey\(|readKeyFile\(|getEnv\(|from "ssh2"/;

function files(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (!["generated", "node_modules", "__fixtures__", "__golden__"].includes(e.name)) files(p, out);
    } else if (/\.(ts|tsx)$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) && !/test-helpers\.ts$/.test(e.name)) out.push(p);
  }
  return out;
}

test("every module holding secrets or the database imports server-only", () => {
  const missing = [...files(path.join(root, "lib")), ...files(path.join(root, "app"))]
    .filter((f) => {
      const text = readFileSync(f, "utf8");
      return holdsSecrets.test(text) && !/^import "server-only";/m.test(text);
    })
    .map((f) => path.relative(root, f));
  expect(missing).toEqual([]);
});
