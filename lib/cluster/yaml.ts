// cluster.yaml ⇄ definition. Parsing reports YAML syntax errors the same way as schema problems.
import { LineCounter, parseDocument, stringify } from "yaml";
import { validateClusterDefinition, type ClusterDefinition, type ValidationResult } from "./definition";

export const maxYamlBytes = 2 * 1024 * 1024;

export function parseClusterYaml(text: string): ValidationResult {
  if (text.length > maxYamlBytes)
    return { ok: false, errors: [{ path: "(file)", message: `is larger than ${maxYamlBytes / 1024 / 1024} MiB` }], warnings: [] };
  // Aliases are capped so that a "billion laughs" document cannot expand without bound.
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, lineCounter });
  if (doc.errors.length > 0)
    return {
      ok: false,
      errors: doc.errors.map((e) => ({
        path: `(line ${lineCounter.linePos(e.pos[0]).line})`,
        message: e.message.split("\n")[0] ?? "invalid YAML",
      })),
      warnings: [],
    };
  return validateClusterDefinition(doc.toJS({ maxAliasCount: 100 }));
}

/** The YAML the dashboard exports: the definition as stored, which never holds secrets. */
export function toClusterYaml(def: ClusterDefinition): string {
  return `# Bootdeck cluster definition — see docs/cluster-yaml.md\n${stringify(def, { lineWidth: 0 })}`;
}
