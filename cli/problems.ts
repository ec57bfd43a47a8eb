// How the CLI prints a definition's problems: one line each, with its field path. Shared by
// `validate` and `render` so both read the same.
import type { Problem } from "../lib/cluster/definition";

export function printWarnings(warnings: readonly Problem[]): void {
  for (const w of warnings) console.log(`warning: ${w.path}: ${w.message}`);
}

export function printErrors(file: string, errors: readonly Problem[]): void {
  for (const e of errors) console.log(`error: ${e.path}: ${e.message}`);
  console.log(`${file}: ${errors.length} problem${errors.length === 1 ? "" : "s"}`);
}
