// How the CLI prints a definition's problems: one line each, with its field path. Shared by
// `validate`, `import` and `render` so they read the same. Paths and messages can carry text from the
// file (a key, a name): control characters are printed as escapes, so a file cannot fake the output.
import type { Problem } from "../lib/cluster/definition";
import { escapeForTerminal } from "../lib/text";

const line = (kind: string, p: Problem) => `${kind}: ${escapeForTerminal(p.path)}: ${escapeForTerminal(p.message)}`;

export function printWarnings(warnings: readonly Problem[]): void {
  for (const w of warnings) console.log(line("warning", w));
}

export function printErrors(file: string, errors: readonly Problem[]): void {
  for (const e of errors) console.log(line("error", e));
  console.log(`${escapeForTerminal(file)}: ${errors.length} problem${errors.length === 1 ? "" : "s"}`);
}
