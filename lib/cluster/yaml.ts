// cluster.yaml ⇄ definition. Parsing reports YAML syntax errors the same way as schema problems.
import { LineCounter, parseDocument, stringify } from "yaml";
import { badText } from "../text";
import { validateClusterDefinition, type ClusterDefinition, type ValidationResult } from "./definition";

export const maxYamlBytes = 2 * 1024 * 1024;
/** How many alias uses a document may expand ("billion laughs" guard). */
export const maxYamlAliases = 100;
const TOO_DEEP = "nests lists or maps too deeply to be read: a cluster definition is a few levels deep (spec → hosts → a host → its labels)";

export function parseClusterYaml(text: string): ValidationResult {
  if (text.length > maxYamlBytes)
    return { ok: false, errors: [{ path: "(file)", message: `is larger than ${maxYamlBytes / 1024 / 1024} MiB` }], warnings: [] };
  // Aliases are capped so that a "billion laughs" document cannot expand without bound.
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, lineCounter });
  if (doc.errors.length > 0) {
    // The parser is recursive: a document nested thousands deep ends in the engine's stack limit, which
    // it reports as its own message. Say what is wrong with the document instead, once.
    const tooDeep = doc.errors.find((e) => /Maximum call stack size exceeded/.test(e.message));
    if (tooDeep) return { ok: false, errors: [{ path: `(line ${lineCounter.linePos(tooDeep.pos[0]).line})`, message: TOO_DEEP }], warnings: [] };
    return {
      ok: false,
      errors: doc.errors.map((e) => ({
        path: `(line ${lineCounter.linePos(e.pos[0]).line})`,
        message: e.message.split("\n")[0] ?? "invalid YAML",
      })),
      warnings: [],
    };
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: maxYamlAliases });
  } catch (err) {
    if (err instanceof RangeError) return { ok: false, errors: [{ path: "(file)", message: TOO_DEEP }], warnings: [] };
    // yaml throws a ReferenceError when aliases expand past the cap (or name an unknown anchor).
    const why = err instanceof ReferenceError && /alias/i.test(err.message) ? `uses aliases that expand too far (at most ${maxYamlAliases} alias uses)` : "has an alias that cannot be resolved";
    return { ok: false, errors: [{ path: "(file)", message: why }], warnings: [] };
  }
  // The same text rules as JSON bodies: YAML escapes ("\0", "\ud800") must not bring NUL or lone
  // surrogates into stored values.
  const bad = badText(data);
  if (bad) return { ok: false, errors: [{ path: "(file)", message: `contains ${bad}` }], warnings: [] };
  return validateClusterDefinition(data);
}

/** The YAML the dashboard exports: the definition as stored, which never holds secrets. */
export function toClusterYaml(def: ClusterDefinition): string {
  return `# Bootdeck cluster definition — see docs/cluster-yaml.md\n${stringify(def, { lineWidth: 0 })}`;
}
