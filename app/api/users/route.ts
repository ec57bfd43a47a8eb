import { recordAudit } from "@/lib/audit/record";
import { createUserBody } from "@/lib/auth/user-schemas";
import { createUser, generatePassword, getUserOrThrow, listUsers } from "@/lib/auth/users";
import { json, readJson, route } from "@/lib/http/route";

// GET /api/users — every local account (never password hashes).
export const GET = route({ permission: "user:manage" }, async () => json({ users: await listUsers() }));

// POST /api/users — create an account with a generated password, returned once in the response.
export const POST = route({ permission: "user:manage" }, async ({ req, user, ip }) => {
  const body = await readJson(req, createUserBody, 8 * 1024);
  const password = generatePassword();
  const id = await createUser({ ...body, password });
  await recordAudit({ action: "user.create", userId: user.id, username: user.username, ip, target: id, details: { username: body.username, role: body.role } });
  return json({ user: await getUserOrThrow({ id }), password }, { status: 201 });
});
