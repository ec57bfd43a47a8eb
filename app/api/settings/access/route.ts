import { accessSettingsBody } from "@/lib/auth/access-schemas";
import { browserUrl } from "@/lib/http/host-check";
import { getAccessSettingsView, updateAccessSettings } from "@/lib/auth/access-settings";
import { forgetDiscovery } from "@/lib/auth/oidc-client";
import { json, readJson, route } from "@/lib/http/route";

// GET /api/settings/access — sign-in settings as the settings page shows them (never the client secret).
export const GET = route({ permission: "access:manage" }, async ({ req }) => json({ settings: await getAccessSettingsView({ requestUrl: browserUrl(req) }) }));

// PUT /api/settings/access — store them and replace the group-to-role mappings (audited).
export const PUT = route({ permission: "access:manage" }, async ({ req, user, ip }) => {
  const body = await readJson(req, accessSettingsBody, 64 * 1024);
  await updateAccessSettings({ body, actor: { id: user.id, username: user.username }, ip });
  forgetDiscovery();
  return json({ settings: await getAccessSettingsView({ requestUrl: browserUrl(req) }) });
});
