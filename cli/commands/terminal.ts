// What every command that asks or records who acted shares: a question on the terminal, and
// the audit log's name for the person at it ("cli:<login>").
import { createInterface } from "node:readline/promises";
import { userInfo } from "node:os";

/** One line typed at the terminal, trimmed. */
export async function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

export async function confirm(question: string): Promise<boolean> {
  return /^y(es)?$/i.test(await ask(question));
}

/** The audit log's actor for this command line's user; "cli:unknown" when the login cannot be read. */
export function cliActor(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return "cli:unknown";
  }
}
