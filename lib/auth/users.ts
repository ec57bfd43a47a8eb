import "server-only";
// Local user accounts: create, list, change role, disable/enable, reset password, delete. Every change
// that could lock the dashboard out is refused: there is always at least one enabled admin, and nobody
// disables or deletes their own account. Disabling, deleting or resetting a password ends the user's
// sessions.
import { randomBytes } from "node:crypto";
import { getDb } from "../db/client";
import { AppError, ValidationError, conflict, notFound } from "../errors";
import { newId } from "../ids";
import { hashPassword, passwordProblem } from "./password";
import type { Role } from "./roles";
import { displayNameSchema, usernameSchema, type UserView } from "./user-schemas";

export async function countUsers(): Promise<number> {
  return getDb().user.count();
}

export async function createUser(input: { username: string; displayName?: string; password: string; role: Role }): Promise<string> {
  const problem = passwordProblem(input.password, [input.username, input.displayName ?? ""]);
  if (problem) throw new ValidationError([{ path: "password", message: problem }]);
  const name = usernameSchema.safeParse(input.username);
  if (!name.success) throw new ValidationError([{ path: "username", message: name.error.issues[0]?.message ?? "is invalid" }]);
  const display = displayNameSchema.safeParse(input.displayName ?? input.username);
  if (!display.success) throw new ValidationError([{ path: "displayName", message: display.error.issues[0]?.message ?? "is invalid" }]);
  const id = newId("usr");
  try {
    await getDb().user.create({
      data: { id, username: name.data, displayName: display.data, passwordHash: await hashPassword(input.password), role: input.role },
    });
  } catch (err) {
    if (err && typeof err === "object" && "code" in err && (err as { code: string }).code === "P2002")
      throw new AppError(409, "name_taken", `A user named "${name.data}" already exists`, {
        errors: [{ path: "username", message: "is taken" }],
        warnings: [],
      });
    throw err;
  }
  return id;
}

export function generatePassword(): string {
  return randomBytes(15).toString("base64url");
}

export async function listUsers(): Promise<UserView[]> {
  const rows = await getDb().user.findMany({ orderBy: { username: "asc" } });
  return rows.map(toView);
}

export async function getUserOrThrow({ id }: { id: string }): Promise<UserView> {
  const row = await getDb().user.findUnique({ where: { id } });
  if (!row) throw notFound("User");
  return toView(row);
}

export async function findUserByName({ username }: { username: string }) {
  return getDb().user.findUnique({ where: { username: username.toLowerCase() }, select: { id: true, username: true, role: true, disabled: true } });
}

/**
 * Changes role, enabled state or display name. `actorId` is the admin asking: they may not disable
 * themselves, and no change may leave the dashboard without an enabled admin.
 */
export async function updateUser(input: { id: string; actorId: string; role?: Role; disabled?: boolean; displayName?: string }): Promise<UserView> {
  if (input.disabled === true && input.id === input.actorId) throw conflict("You cannot disable your own account");
  await getDb().$transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { id: input.id } });
    if (!user) throw notFound("User");
    const role = input.role ?? user.role;
    const disabled = input.disabled ?? user.disabled;
    const wasActiveAdmin = user.role === "admin" && !user.disabled;
    if (wasActiveAdmin && (role !== "admin" || disabled)) {
      const others = await tx.user.count({ where: { role: "admin", disabled: false, id: { not: user.id } } });
      if (others === 0) throw conflict("This is the last enabled admin; make another user admin first");
    }
    await tx.user.update({ where: { id: user.id }, data: { role, disabled, ...(input.displayName !== undefined ? { displayName: input.displayName } : {}) } });
    if (disabled && !user.disabled) await tx.session.deleteMany({ where: { userId: user.id } });
  });
  return getUserOrThrow({ id: input.id });
}

/**
 * Deletes an account and, with it, its sessions (runs it planned keep their history, without the
 * name; the audit log keeps it). Refused for your own account and for the last enabled admin.
 */
export async function deleteUser(input: { id: string; actorId: string }): Promise<UserView> {
  if (input.id === input.actorId) throw conflict("You cannot delete your own account");
  return getDb().$transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { id: input.id } });
    if (!user) throw notFound("User");
    if (user.role === "admin" && !user.disabled) {
      const others = await tx.user.count({ where: { role: "admin", disabled: false, id: { not: user.id } } });
      if (others === 0) throw conflict("This is the last enabled admin; make another user admin first");
    }
    await tx.session.deleteMany({ where: { userId: user.id } });
    await tx.user.delete({ where: { id: user.id } });
    return toView(user);
  });
}

/** Sets a new password (generated unless given) and ends the user's sessions. Returns the password. */
export async function resetUserPassword(input: { id: string; password?: string }): Promise<string> {
  const password = input.password ?? generatePassword();
  const problem = passwordProblem(password);
  if (problem) throw new ValidationError([{ path: "password", message: problem }]);
  const passwordHash = await hashPassword(password);
  await getDb().$transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { id: input.id }, select: { id: true, authProvider: true } });
    if (!user) throw notFound("User");
    // A password would give the provider's account a second way in that the provider does not control.
    if (user.authProvider !== "local") throw conflict("This account signs in through the identity provider and has no password");
    await tx.user.update({ where: { id: user.id }, data: { passwordHash } });
    await tx.session.deleteMany({ where: { userId: user.id } });
  });
  return password;
}

function toView(u: { id: string; username: string; displayName: string; role: string; disabled: boolean; createdAt: Date; authProvider: string }): UserView {
  return {
    id: u.id,
    provider: u.authProvider === "oidc" ? "oidc" : "local",
    username: u.username,
    displayName: u.displayName,
    role: u.role as Role,
    disabled: u.disabled,
    createdAt: u.createdAt.toISOString(),
  };
}
