// Sign-in settings: the client secret sealed and never shown, environment variables winning, local
// sign-in limited to break-glass accounts without locking every admin out, and groups to roles.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createActor, actorPassword, type Actor } from "../../test/http-helpers";
import { testKeyPair } from "../../test/ssh-key";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { exampleDefinition } from "../cluster/example";
import { createCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { resetEnvCache } from "../env";
import { accessSettingsBody, issuerProblem, roleForGroups, type AccessSettingsBody } from "./access-schemas";
import { getAccessSettings, getAccessSettingsView, updateAccessSettings } from "./access-settings";
import { roleOnCluster } from "./cluster-role";
import { login } from "./login";
import { resetUserPassword } from "./users";
import { decryptSecret, secretContexts } from "../secrets/cipher";

let db: TempDb;
let root: Actor;
let lead: Actor;

const body = (over: Partial<AccessSettingsBody> = {}): AccessSettingsBody => ({
  oidcEnabled: true,
  issuer: "https://idp.example.com/realms/ops",
  clientId: "bootdeck",
  clientSecret: "s3cret-value-for-the-test",
  scopes: "openid profile email offline_access",
  groupsClaim: "groups",
  usernameClaim: "preferred_username",
  localSignIn: "everyone",
  breakGlass: [],
  kubeconfigHours: 8,
  mappings: [{ group: "ops", role: "lead", clusterId: null }],
  ...over,
});

beforeAll(async () => {
  db = await createTempDb();
  root = await createActor("admin", "root");
  lead = await createActor("lead", "lena");
});
afterAll(async () => db?.cleanup());

describe("groups to roles", () => {
  const mappings = [
    { group: "ops", role: "lead", clusterId: null },
    { group: "helpdesk", role: "support", clusterId: null },
    { group: "platform", role: "admin", clusterId: null },
    { group: "helpdesk", role: "lead", clusterId: "cl_AAAAAAAAAAAAAAAA" },
  ] as const;
  test("the highest installation-wide role of the person's groups; none when no group is mapped", () => {
    expect(roleForGroups(["ops", "helpdesk"], [...mappings])).toBe("lead");
    expect(roleForGroups(["platform", "ops"], [...mappings])).toBe("admin");
    expect(roleForGroups(["marketing"], [...mappings])).toBeUndefined();
    expect(roleForGroups([], [...mappings])).toBeUndefined();
  });
  test("a per-cluster mapping counts on its cluster only", () => {
    expect(roleForGroups(["helpdesk"], [...mappings], "cl_AAAAAAAAAAAAAAAA")).toBe("lead");
    expect(roleForGroups(["helpdesk"], [...mappings], "cl_BBBBBBBBBBBBBBBB")).toBe("support");
  });
  test("issuers are https, or http on this machine only", () => {
    expect(issuerProblem("https://idp.example.com")).toBeUndefined();
    expect(issuerProblem("http://127.0.0.1:5556/dex")).toBeUndefined();
    expect(issuerProblem("http://idp.example.com")).toMatch(/https/);
    expect(issuerProblem("https://idp.example.com/?x=1")).toMatch(/query/);
    expect(issuerProblem("not a url")).toMatch(/URL/);
  });
  test("the settings body refuses what cannot work", () => {
    const bad = accessSettingsBody.safeParse({ ...body({ clientId: "", localSignIn: "break-glass", oidcEnabled: true, kubeconfigHours: 48, scopes: "profile" }) });
    expect(bad.success).toBe(false);
    const paths = bad.error!.issues.map((i) => i.path.join("."));
    expect(paths).toEqual(expect.arrayContaining(["clientId", "kubeconfigHours", "scopes"]));
  });
});

describe("stored settings", () => {
  test("the client secret is sealed at rest and never in the view", async () => {
    await updateAccessSettings({ body: body(), actor: { id: root.userId, username: root.username } });
    const row = await getDb().accessSettings.findUniqueOrThrow({ where: { id: "default" } });
    expect(row.clientSecretCipher).toMatch(/^v2:/);
    expect(row.clientSecretCipher).not.toContain("s3cret");
    // Bound to its row and field: as another field it does not open.
    expect(() => decryptSecret(row.clientSecretCipher!, secretContexts.oidcRefreshToken("default"))).toThrow(/does not authenticate/);
    expect((await getAccessSettings()).oidc?.clientSecret).toBe("s3cret-value-for-the-test");
    const view = await getAccessSettingsView({ requestUrl: "http://bootdeck.test/x" });
    expect(JSON.stringify(view)).not.toContain("s3cret");
    expect(view).toMatchObject({ clientSecretSet: true, redirectUri: "http://bootdeck.test/api/auth/oidc/callback" });
    // Absent keeps it; "" removes it.
    await updateAccessSettings({ body: { ...body(), clientSecret: undefined }, actor: { id: root.userId, username: root.username } });
    expect((await getAccessSettings()).oidc?.clientSecret).toBe("s3cret-value-for-the-test");
    const audit = await getDb().auditEvent.findFirstOrThrow({ where: { action: "settings.access_update" }, orderBy: { id: "desc" } });
    expect(audit.details).not.toContain("s3cret");
    expect(JSON.parse(audit.details)).toMatchObject({ clientSecret: "kept", mappings: "ops → lead" });
  });

  test("environment variables win over the stored values", async () => {
    process.env.BOOTDECK_OIDC_ISSUER = "https://other.example.com";
    process.env.BOOTDECK_OIDC_CLIENT_SECRET = "from-the-environment";
    resetEnvCache();
    try {
      const s = await getAccessSettings();
      expect(s.oidc).toMatchObject({ issuer: "https://other.example.com", clientId: "bootdeck", clientSecret: "from-the-environment" });
      expect((await getAccessSettingsView({ requestUrl: "http://x/" })).fromEnvironment).toEqual(["issuer", "clientSecret"]);
    } finally {
      delete process.env.BOOTDECK_OIDC_ISSUER;
      delete process.env.BOOTDECK_OIDC_CLIENT_SECRET;
      resetEnvCache();
    }
  });

  test("a per-cluster mapping raises an identity provider's member on that cluster only", async () => {
    const cluster = await createCluster({ definition: exampleDefinition({ name: "alpha" }), secrets: { "admin-key": { privateKey: testKeyPair().private } } });
    await updateAccessSettings({
      body: body({ mappings: [{ group: "helpdesk", role: "support", clusterId: null }, { group: "helpdesk", role: "admin", clusterId: cluster.id }] }),
      actor: { id: root.userId, username: root.username },
    });
    const user = { role: "support" as const, provider: "oidc" as const, groups: ["helpdesk"] };
    expect(await roleOnCluster(user, cluster.id)).toBe("admin");
    expect(await roleOnCluster(user, "cl_BBBBBBBBBBBBBBBB")).toBe("support");
    // Local accounts have no groups: their role is the same everywhere.
    expect(await roleOnCluster({ role: "support", provider: "local", groups: [] }, cluster.id)).toBe("support");
  });
});

describe("break-glass accounts", () => {
  test("local sign-in limited to break-glass accounts needs an enabled local admin among them", async () => {
    await expect(updateAccessSettings({ body: body({ localSignIn: "break-glass", breakGlass: ["lena"] }), actor: { id: root.userId, username: root.username } })).rejects.toMatchObject({
      status: 422,
    });
  });

  test("with it on, only the named accounts sign in locally; the others are told to use the provider, and it is audited", async () => {
    await updateAccessSettings({ body: body({ localSignIn: "break-glass", breakGlass: ["root"] }), actor: { id: root.userId, username: root.username } });
    await expect(login({ username: "root", password: actorPassword("admin"), ip: "192.0.2.1" })).resolves.toMatchObject({ token: expect.any(String) });
    await expect(login({ username: "lena", password: actorPassword("lead"), ip: "192.0.2.1" })).rejects.toMatchObject({ status: 403, code: "local_sign_in_off" });
    // A wrong password is still a wrong password.
    await expect(login({ username: "lena", password: "not-her-password-9", ip: "192.0.2.2" })).rejects.toMatchObject({ status: 401 });
    const refused = await getDb().auditEvent.findFirstOrThrow({ where: { action: "auth.login_refused" }, orderBy: { id: "desc" } });
    expect(refused).toMatchObject({ username: "lena", provider: "local", subject: lead.userId });
    await updateAccessSettings({ body: body(), actor: { id: root.userId, username: root.username } });
  });

  test("an identity provider's account has no password and cannot get one", async () => {
    const id = "usr_OIDCOIDCOIDCOIDC";
    await getDb().user.create({ data: { id, username: "olga", displayName: "Olga", passwordHash: "!", role: "lead", authProvider: "oidc", oidcIssuer: "https://idp.example.com", oidcSubject: "o-1" } });
    await expect(resetUserPassword({ id })).rejects.toMatchObject({ status: 409 });
    await expect(login({ username: "olga", password: "!", ip: "192.0.2.3" })).rejects.toMatchObject({ status: 401 });
  });
});
