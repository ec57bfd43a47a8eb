// Per-cluster roles through the route funnel: a provider member's role raised on the cluster a
// mapping names, for that cluster's routes (and its runs'), and nowhere else.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, expect, test } from "vitest";
import { call, createActor, type Handler } from "../../test/http-helpers";
import { testKeyPair } from "../../test/ssh-key";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { exampleDefinition } from "../cluster/example";
import { createCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { updateAccessSettings } from "./access-settings";
import { clusterOfApiPath } from "./cluster-role";
import { createSession, sessionCookieName } from "./sessions";
import * as clusterRoute from "../../app/api/clusters/[id]/route";
import * as kubeconfigsRoute from "../../app/api/clusters/[id]/kubeconfigs/route";

let db: TempDb;
let a: string;
let b: string;
let signed: { cookie: string; csrf: string };

beforeAll(async () => {
  db = await createTempDb();
  const admin = await createActor("admin", "root");
  const secrets = { "admin-key": { privateKey: testKeyPair().private } };
  a = (await createCluster({ definition: exampleDefinition({ name: "alpha", hosts: 2 }), secrets })).id;
  b = (await createCluster({ definition: exampleDefinition({ name: "beta", hosts: 2 }), secrets })).id;
  await updateAccessSettings({
    body: {
      oidcEnabled: true, issuer: "https://idp.example.com", clientId: "bootdeck", scopes: "openid", groupsClaim: "groups", usernameClaim: "preferred_username",
      localSignIn: "everyone", breakGlass: [], kubeconfigHours: 8,
      mappings: [{ group: "helpdesk", role: "support", clusterId: null }, { group: "alpha-ops", role: "admin", clusterId: a }],
    },
    actor: { id: admin.userId, username: "root" },
  });
  const id = "usr_HANKHANKHANKHANK";
  await getDb().user.create({ data: { id, username: "hank", displayName: "Hank", passwordHash: "!", role: "support", authProvider: "oidc", oidcIssuer: "https://idp.example.com", oidcSubject: "h-1" } });
  const { token } = await createSession({ userId: id, oidc: { refreshToken: "rt", groups: ["helpdesk", "alpha-ops"] } });
  const s = await getDb().session.findUniqueOrThrow({ where: { id: createHash("sha256").update(token).digest("hex") } });
  signed = { cookie: `${sessionCookieName(false)}=${token}`, csrf: s.csrfToken };
});
afterAll(async () => db?.cleanup());

test("the role on the mapped cluster is raised; on another cluster it stays the installation role", async () => {
  const role = async (id: string) =>
    ((await (await call(kubeconfigsRoute.GET as Handler, { method: "GET", path: `/api/clusters/${id}/kubeconfigs`, params: { id }, signed })).json()) as { role: string }).role;
  expect(await role(a)).toBe("admin");
  expect(await role(b)).toBe("support");
  // An admin's action on alpha gets past the permission check (and stops at the wrong name); on beta it is refused.
  const del = (id: string) => call(clusterRoute.DELETE as Handler, { method: "DELETE", path: `/api/clusters/${id}`, params: { id }, signed, body: JSON.stringify({ confirmName: "not-the-name" }) });
  expect((await del(a)).status).not.toBe(403);
  expect((await del(b)).status).toBe(403);
  expect(await getDb().cluster.count()).toBe(2);
});

test("a run's routes count as its cluster's", async () => {
  const run = await getDb().run.create({ data: { id: "run_RRRRRRRRRRRRRRRR", clusterId: a, type: "check", status: "succeeded" } });
  expect(await clusterOfApiPath(`/api/runs/${run.id}/retry`)).toBe(a);
  expect(await clusterOfApiPath(`/api/clusters/${b}/runs`)).toBe(b);
  expect(await clusterOfApiPath("/api/clusters/import")).toBeUndefined();
  expect(await clusterOfApiPath("/api/users")).toBeUndefined();
});
