import { recordAudit } from "@/lib/audit/record";
import { resetPasswordBody, userIdParams } from "@/lib/auth/user-schemas";
import { getUserOrThrow, resetUserPassword } from "@/lib/auth/users";
import { json, readJson, route } from "@/lib/http/route";

// POST /api/users/:id/password — set a generated password (returned once) and end the user's sessions.
export const POST = route({ permission: "user:manage", params: userIdParams }, async ({ req, params, user, ip }) => {
  await readJson(req, resetPasswordBody, 1024);
  const target = await getUserOrThrow(params);
  const password = await resetUserPassword({ id: params.id });
  await recordAudit({ action: "user.password_reset", userId: user.id, username: user.username, ip, target: params.id, details: { username: target.username } });
  return json({ password });
});
