import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { createActor, signIn, type Actor } from "../../test/http-helpers";
import { getDb } from "../db/client";
import { verifyPassword } from "./password";
import { createUser, listUsers, resetUserPassword, updateUser } from "./users";

let db: TempDb;
let root: Actor;
beforeAll(async () => {
  db = await createTempDb();
  root = await createActor("admin", "root");
});
afterAll(async () => db?.cleanup());

describe("users", () => {
  test("the last enabled admin can neither be demoted nor disabled; with a second admin it can", async () => {
    await expect(updateUser({ id: root.userId, actorId: root.userId, role: "lead" })).rejects.toMatchObject({ status: 409 });
    await expect(updateUser({ id: root.userId, actorId: "cli", disabled: true })).rejects.toMatchObject({ status: 409 });
    const second = await createActor("admin", "second");
    // A disabled admin does not count.
    await updateUser({ id: second.userId, actorId: root.userId, disabled: true });
    await expect(updateUser({ id: root.userId, actorId: root.userId, role: "support" })).rejects.toMatchObject({ status: 409 });
    await updateUser({ id: second.userId, actorId: root.userId, disabled: false });
    const demoted = await updateUser({ id: second.userId, actorId: root.userId, role: "lead" });
    expect(demoted.role).toBe("lead");
    await updateUser({ id: second.userId, actorId: root.userId, role: "admin" });
    expect((await updateUser({ id: root.userId, actorId: root.userId, role: "lead" })).role).toBe("lead");
    await updateUser({ id: root.userId, actorId: second.userId, role: "admin" });
  });

  test("nobody disables their own account", async () => {
    await createActor("admin", "third");
    await expect(updateUser({ id: root.userId, actorId: root.userId, disabled: true })).rejects.toMatchObject({ status: 409, message: /own account/ });
  });

  test("a password reset returns a new working password and ends the user's sessions", async () => {
    const u = await createActor("support", "forgetful");
    await signIn(u);
    await signIn(u);
    const pw = await resetUserPassword({ id: u.userId });
    expect(pw.length).toBeGreaterThanOrEqual(20);
    expect(await getDb().session.count({ where: { userId: u.userId } })).toBe(0);
    const row = await getDb().user.findUniqueOrThrow({ where: { id: u.userId } });
    expect(await verifyPassword(pw, row.passwordHash)).toBe(true);
    expect(await verifyPassword("support-password-123", row.passwordHash)).toBe(false);
  });

  test("names are validated and unique; lists never carry password hashes", async () => {
    await expect(createUser({ username: "../etc", password: "long-enough-pw", role: "lead" })).rejects.toMatchObject({ status: 422 });
    await expect(createUser({ username: "okname", displayName: "<script>alert(1)</script>", password: "long-enough-pw", role: "lead" })).rejects.toMatchObject({ status: 422 });
    await expect(createUser({ username: "short", password: "short", role: "lead" })).rejects.toMatchObject({ status: 422 });
    await createUser({ username: "dup", password: "long-enough-pw", role: "lead" });
    await expect(createUser({ username: "dup", password: "long-enough-pw", role: "lead" })).rejects.toMatchObject({ status: 409 });
    expect(JSON.stringify(await listUsers())).not.toMatch(/scrypt|passwordHash/);
  });
});

describe("deleting users", () => {
  test("deletes the account and its sessions through the API, admins only, audited", async () => {
    const { DELETE } = await import("../../app/api/users/[id]/route");
    const { call } = await import("../../test/http-helpers");
    const victim = await createActor("lead", "to-delete");
    const victimSession = await signIn(victim);
    const asRoot = await signIn(root);
    const res = await call(DELETE as never, { method: "DELETE", path: `/api/users/${victim.userId}`, params: { id: victim.userId }, signed: asRoot });
    expect(res.status).toBe(200);
    expect(await getDb().user.findUnique({ where: { id: victim.userId } })).toBeNull();
    expect(await getDb().session.count({ where: { userId: victim.userId } })).toBe(0);
    expect(victimSession.cookie).toBeTruthy();
    const audit = await getDb().auditEvent.findFirst({ where: { action: "user.delete", target: victim.userId } });
    expect(audit?.userId).toBe(root.userId);
    expect(JSON.parse(audit!.details ?? "{}")).toMatchObject({ username: "to-delete", role: "lead" });
  });

  test("never your own account, never the last enabled admin", async () => {
    const { deleteUser } = await import("./users");
    await expect(deleteUser({ id: root.userId, actorId: root.userId })).rejects.toMatchObject({ status: 409 });
    const admins = await getDb().user.findMany({ where: { role: "admin", disabled: false } });
    for (const a of admins.filter((a) => a.id !== root.userId)) await getDb().user.update({ where: { id: a.id }, data: { disabled: true } });
    await expect(deleteUser({ id: root.userId, actorId: "cli" })).rejects.toMatchObject({ status: 409, message: expect.stringMatching(/last enabled admin/) });
    expect(await getDb().user.findUnique({ where: { id: root.userId } })).not.toBeNull();
    const other = await createActor("admin", "other-admin");
    await deleteUser({ id: other.userId, actorId: "cli" });
    await expect(deleteUser({ id: other.userId, actorId: "cli" })).rejects.toMatchObject({ status: 404 });
  });

  test("a weak password is refused when a user is created or a password is set", async () => {
    await expect(createUser({ username: "weakling", password: "aaaaaaaaaa", role: "support" })).rejects.toMatchObject({ status: 422 });
    await expect(resetUserPassword({ id: root.userId, password: "password123" })).rejects.toMatchObject({ status: 422 });
  });
});
