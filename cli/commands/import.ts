import { readFile } from "node:fs/promises";
import path from "node:path";
import { recordAudit } from "../../lib/audit/record";
import { parseClusterYaml } from "../../lib/cluster/yaml";
import { readCredentialSecrets } from "../../lib/clusters/cli-secrets";
import { importClusterYaml } from "../../lib/clusters/import";
import { describeHostKeyChanges } from "../../lib/clusters/repository";
import { disconnectDb } from "../../lib/db/client";
import { AppError, ValidationError } from "../../lib/http/errors";
import type { Command } from "./command";
import { printErrors, printWarnings } from "../problems";

export const importCommand: Command = {
  async run(argv) {
    const file = argv.find((a) => !a.startsWith("-"));
    if (!file || argv.includes("--help")) {
      console.log(`Usage: bootdeck import cluster.yaml [--replace]

Credentials are read from each credential's privateKeyFile (relative to the YAML file),
passphraseEnv and passwordEnv. --replace updates the cluster of the same name.`);
      return file ? 0 : 2;
    }
    try {
      const r = await importFile(file, { replace: argv.includes("--replace") });
      return r.ok ? 0 : 1;
    } finally {
      await disconnectDb();
    }
  },
};

/** Reads, checks and saves a cluster.yaml with the secrets it names; prints what went wrong. */
export async function importFile(file: string, opts: { replace: boolean; via?: string }): Promise<{ ok: true; id: string; name: string } | { ok: false }> {
  const text = await readFile(file, "utf8");
  const parsed = parseClusterYaml(text);
  if (!parsed.ok) {
    printWarnings(parsed.warnings);
    printErrors(file, parsed.errors);
    return { ok: false };
  }
  const { secrets, problems } = await readCredentialSecrets(parsed.definition, path.dirname(path.resolve(file)), process.env);
  if (problems.length) {
    printErrors(file, problems);
    return { ok: false };
  }
  try {
    const r = await importClusterYaml({ yaml: text, secrets, replace: opts.replace });
    await recordAudit({ action: r.created ? "cluster.import" : "cluster.import_replace", username: `cli:${process.env.USER ?? "?"}`, target: r.id, details: { via: opts.via ?? "cli", ...(r.hostKeys ? { hostKeys: r.hostKeys } : {}) } });
    printWarnings(r.warnings);
    console.log(`${r.created ? "created" : "updated"} cluster ${parsed.definition.metadata.name} (${r.id})`);
    // Pinned host keys are never kept or cleared silently.
    if (r.hostKeys) for (const line of describeHostKeyChanges(r.hostKeys, parsed.definition.metadata.name)) console.log(line);
    return { ok: true, id: r.id, name: parsed.definition.metadata.name };
  } catch (err) {
    if (err instanceof ValidationError) {
      printWarnings(err.warnings);
      printErrors(file, err.errors);
      return { ok: false };
    }
    if (err instanceof AppError) {
      console.error(`bootdeck: ${err.message}`);
      return { ok: false };
    }
    throw err;
  }
}
