import { recordAudit } from "@/lib/audit/record";
import { updateUserBody, userIdParams } from "@/lib/auth/user-schemas";
import { deleteUser, getUserOrThrow, updateUser } from "@/lib/auth/users";
import { json, readJson, route } from "@/lib/http/route";

// GET /api/users/:id — one account.
export const GET = route({ permission: "user:manage", params: userIdParams }, async ({ params }) => json({ user: await getUserOrThrow(params) }));

// PATCH /api/users/:id — change role, display name, or disable/enable (disabling ends the user's sessions).
export const PATCH = route({ permission: "user:manage", params: userIdParams }, async ({ req, params, user, ip }) => {
  const body = await readJson(req, updateUserBody, 8 * 1024);
  const before = await getUserOrThrow(params);
  const after = await updateUser({ id: params.id, actorId: user.id, ...body });
  const changes: Record<string, unknown> = {};
  if (before.role !== after.role) changes.role = { from: before.role, to: after.role };
  if (before.disabled !== after.disabled) changes.disabled = after.disabled;
  if (before.displayName !== after.displayName) changes.displayName = after.displayName;
  const action = changes.disabled === true ? "user.disable" : changes.disabled === false ? "user.enable" : "user.update";
  await recordAudit({ action, userId: user.id, username: user.username, ip, target: params.id, details: { username: after.username, ...changes } });
  return json({ user: after });
});

// DELETE /api/users/:id — delete an account and end its sessions (not your own, not the last enabled admin).
export const DELETE = route({ permission: "user:manage", params: userIdParams }, async ({ params, user, ip }) => {
  const deleted = await deleteUser({ id: params.id, actorId: user.id });
  await recordAudit({ action: "user.delete", userId: user.id, username: user.username, ip, target: params.id, details: { username: deleted.username, role: deleted.role } });
  return json({ ok: true });
});
