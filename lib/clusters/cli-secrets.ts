import "server-only";
// The command line's way to supply secrets: cluster.yaml may name a key file or environment
// variables for each credential (the dashboard ignores these and takes uploads instead).
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { ClusterDefinition, Problem } from "../cluster/definition";
import type { CredentialSecrets } from "./schemas";

export async function readCredentialSecrets(def: ClusterDefinition, baseDir: string, env: NodeJS.ProcessEnv): Promise<{ secrets: CredentialSecrets; problems: Problem[] }> {
  const secrets: CredentialSecrets = {};
  const problems: Problem[] = [];
  for (const [i, c] of def.spec.credentials.entries()) {
    const at = `spec.credentials[${i}]`;
    const s: CredentialSecrets[string] = {};
    for (const [field, target] of [["privateKeyFile", "privateKey"], ["passwordFile", "password"]] as const) {
      const name = c[field];
      if (!name) continue;
      const file = path.resolve(baseDir, name.replace(/^~(?=\/)/, env.HOME ?? "~"));
      try {
        const text = await readFile(file, "utf8");
        // A password file ends with a newline more often than not; the password does not.
        s[target] = target === "password" ? text.replace(/\r?\n$/, "") : text;
      } catch (err) {
        problems.push({ path: `${at}.${field}`, message: `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}` });
      }
    }
    for (const [field, target] of [["passphraseEnv", "passphrase"], ["passwordEnv", "password"]] as const) {
      const name = c[field];
      if (!name) continue;
      const value = env[name];
      if (value === undefined) problems.push({ path: `${at}.${field}`, message: `environment variable ${name} is not set` });
      else s[target] = value;
    }
    if (Object.keys(s).length) secrets[c.name] = s;
  }
  return { secrets, problems };
}
