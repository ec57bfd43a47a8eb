import type { Problem } from "../../lib/cluster/definition";

/** Prints field problems the way every command does: `error: path: message`, then a count. */
export function printProblems(label: string, errors: Problem[], warnings: Problem[] = []): void {
  for (const w of warnings) console.log(`warning: ${w.path}: ${w.message}`);
  for (const e of errors) console.log(`error: ${e.path}: ${e.message}`);
  if (errors.length) console.log(`${label}: ${errors.length} problem${errors.length === 1 ? "" : "s"}`);
}
