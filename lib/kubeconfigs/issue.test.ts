// Personal kubeconfigs: a certificate that names its holder and their role's group, signed by the
// cluster CA the API server trusts, valid for the admin's period; audited, listed while live, and the
// key kept nowhere. (Whether the API server accepts it is the lab bootstrap suite's part: test/kubeconfig-checks.ts.)
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { X509Certificate, createPrivateKey, createPublicKey } from "node:crypto";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createActor, call, signIn, type Actor, type Handler } from "../../test/http-helpers";
import { testKeyPair } from "../../test/ssh-key";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { renderAndSaveAssetSet } from "../clusters/render-assets";
import { updateAccessSettings } from "../auth/access-settings";
import { exampleDefinition } from "../cluster/example";
import { createCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { issueKubeconfig, listLiveKubeconfigs } from "./issue";
import * as issueRoute from "../../app/api/clusters/[id]/kubeconfig/route";
import * as listRoute from "../../app/api/clusters/[id]/kubeconfigs/route";

let db: TempDb;
let admin: Actor;
let support: Actor;
let clusterId: string;
let caPem: string;

beforeAll(async () => {
  db = await createTempDb();
  admin = await createActor("admin", "root");
  support = await createActor("support", "sam");
  clusterId = (await createCluster({ definition: exampleDefinition({ name: "kc", hosts: 2 }), secrets: { "admin-key": { privateKey: testKeyPair().private } } })).id;
  const set = await renderAndSaveAssetSet({ clusterId, options: {} });
  // As a finished bootstrap leaves it: a succeeded run with the asset set the cluster runs.
  await getDb().run.create({ data: { id: "run_KCKCKCKCKCKCKCKC", clusterId, type: "bootstrap", status: "succeeded", assetSetId: set.id, finishedAt: new Date() } });
  caPem = (await getDb().asset.findFirstOrThrow({ where: { assetSetId: set.id, path: "tls/ca.crt" } })).content;
});
afterAll(async () => db?.cleanup());

function certOf(kubeconfigText: string) {
  const doc = parse(kubeconfigText) as { users: { user: Record<string, string> }[]; clusters: { cluster: { server: string } }[] };
  const u = doc.users[0]!.user;
  const certPem = Buffer.from(u["client-certificate-data"]!, "base64").toString();
  const keyPem = Buffer.from(u["client-key-data"]!, "base64").toString();
  return { cert: new X509Certificate(certPem), certPem, keyPem, server: doc.clusters[0]!.cluster.server };
}

describe("a personal kubeconfig", () => {
  test("names the user (CN) and their role's group (O), is signed by the cluster CA, and lasts the default 8 hours", async () => {
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    const out = await issueKubeconfig({ clusterId, user: { id: support.userId, username: "sam" }, role: "support", now });
    const { cert, certPem, keyPem, server } = certOf(out.kubeconfig);
    expect(cert.subject).toBe("CN=sam\nO=bootdeck:support");
    const ca = new X509Certificate(caPem);
    expect(cert.checkIssued(ca)).toBe(true);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(new Date(cert.validTo).getTime() - now.getTime()).toBe(8 * 3600_000);
    expect(cert.keyUsage).toEqual(["1.3.6.1.5.5.7.3.2"]); // clientAuth only
    expect(cert.ca).toBe(false);
    // The key belongs to the certificate, and nothing stores it.
    expect(createPublicKey(createPrivateKey(keyPem)).export({ type: "spki", format: "pem" })).toBe(cert.publicKey.export({ type: "spki", format: "pem" }));
    const dbText = JSON.stringify(await getDb().kubeconfigIssue.findMany()) + JSON.stringify(await getDb().auditEvent.findMany());
    expect(dbText).not.toContain(keyPem.split("\n")[1]);
    expect(server).toBe("https://api.example.internal:6443"); // the definition's API endpoint
    // openssl agrees on the chain and the purpose.
    const dir = mkdtempSync(path.join(tmpdir(), "kc-"));
    writeFileSync(path.join(dir, "ca.crt"), caPem);
    writeFileSync(path.join(dir, "user.crt"), certPem);
    const verified = execFileSync("openssl", ["verify", "-attime", String(now.getTime() / 1000 + 60), "-purpose", "sslclient", "-CAfile", path.join(dir, "ca.crt"), path.join(dir, "user.crt")], { encoding: "utf8" });
    expect(verified.trim()).toMatch(/: OK$/);

    expect(out.issue).toMatchObject({ username: "sam", role: "support", group: "bootdeck:support", serial: cert.serialNumber.toLowerCase().replace(/^0+/, "").padStart(out.issue.serial.length, "0") });
    const audit = await getDb().auditEvent.findFirstOrThrow({ where: { action: "kubeconfig.issue" }, orderBy: { id: "desc" } });
    expect(audit).toMatchObject({ username: "sam", target: clusterId, provider: "local", subject: support.userId });
    expect(JSON.parse(audit.details)).toMatchObject({ serial: out.issue.serial, group: "bootdeck:support" });
  });

  test("lasts the period an admin set, and is listed only while it has not expired", async () => {
    await updateAccessSettings({
      body: { oidcEnabled: false, issuer: "", clientId: "", scopes: "openid", groupsClaim: "groups", usernameClaim: "preferred_username", localSignIn: "everyone", breakGlass: [], kubeconfigHours: 24, mappings: [] },
      actor: { id: admin.userId, username: "root" },
    });
    const now = new Date();
    const out = await issueKubeconfig({ clusterId, user: { id: admin.userId, username: "root" }, role: "admin", now });
    const { cert } = certOf(out.kubeconfig);
    expect(cert.subject).toBe("CN=root\nO=bootdeck:admin");
    expect(new Date(cert.validTo).getTime() - now.getTime()).toBeGreaterThan(24 * 3600_000 - 1000);
    expect((await listLiveKubeconfigs({ clusterId })).map((k) => k.serial)).toContain(out.issue.serial);
    expect((await listLiveKubeconfigs({ clusterId, now: new Date(now.getTime() + 25 * 3600_000) })).map((k) => k.serial)).not.toContain(out.issue.serial);
  });

  test("is refused for a cluster Bootdeck has not bootstrapped", async () => {
    const other = (await createCluster({ definition: exampleDefinition({ name: "fresh", hosts: 2 }), secrets: { "admin-key": { privateKey: testKeyPair().private } } })).id;
    await expect(issueKubeconfig({ clusterId: other, user: { id: admin.userId, username: "root" }, role: "admin" })).rejects.toMatchObject({ status: 409 });
  });

  test("through the routes: any role downloads its own; the list shows admins every live one, others their own", async () => {
    const s = await signIn(support);
    const res = await call(issueRoute.POST as Handler, { method: "POST", path: `/api/clusters/${clusterId}/kubeconfig`, params: { id: clusterId }, signed: s, body: "{}" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="kc-sam.kubeconfig"');
    expect(certOf(await res.text()).cert.subject).toBe("CN=sam\nO=bootdeck:support");
    const mine = await call(listRoute.GET as Handler, { method: "GET", path: `/api/clusters/${clusterId}/kubeconfigs`, params: { id: clusterId }, signed: s });
    const body = (await mine.json()) as { issues: { username: string }[]; hours: number };
    expect(new Set(body.issues.map((i) => i.username))).toEqual(new Set(["sam"]));
    const all = await call(listRoute.GET as Handler, { method: "GET", path: `/api/clusters/${clusterId}/kubeconfigs`, params: { id: clusterId }, signed: await signIn(admin) });
    expect(new Set(((await all.json()) as { issues: { username: string }[] }).issues.map((i) => i.username))).toEqual(new Set(["sam", "root"]));
    // Without the CSRF token nothing is issued.
    const count = await getDb().kubeconfigIssue.count();
    const noCsrf = await call(issueRoute.POST as Handler, { method: "POST", path: `/api/clusters/${clusterId}/kubeconfig`, params: { id: clusterId }, signed: s, csrf: null, body: "{}" });
    expect(noCsrf.status).toBe(403);
    expect(await getDb().kubeconfigIssue.count()).toBe(count);
  });
});
