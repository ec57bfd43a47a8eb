import "server-only";
import { randomBytes } from "node:crypto";
import { getDb } from "../db/client";
import { newId } from "../ids";
import { hashPassword, passwordProblem } from "./password";
import type { Role } from "./roles";

export async function countUsers(): Promise<number> {
  return getDb().user.count();
}

export async function createUser(input: { username: string; displayName?: string; password: string; role: Role }): Promise<string> {
  const problem = passwordProblem(input.password);
  if (problem) throw new Error(`password ${problem}`);
  if (!/^[a-z][a-z0-9._-]{1,31}$/.test(input.username)) throw new Error("user names are 2–32 lower-case letters, digits, '.', '_' or '-'");
  const id = newId("usr");
  await getDb().user.create({
    data: { id, username: input.username, displayName: input.displayName ?? input.username, passwordHash: await hashPassword(input.password), role: input.role },
  });
  return id;
}

export function generatePassword(): string {
  return randomBytes(15).toString("base64url");
}
