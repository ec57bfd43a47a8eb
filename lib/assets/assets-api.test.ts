// The Assets API as the tab uses it, through the real route handlers (test/http-helpers.ts):
// start a render, poll its progress, read the set, diff two renders, download with and without keys.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, createActor, signIn, type Handler, type Signed } from "../../test/http-helpers";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { exampleDefinition } from "../cluster/example";
import { createCluster } from "../clusters/repository";
import * as setsRoute from "../../app/api/clusters/[id]/assets/route";
import * as jobRoute from "../../app/api/clusters/[id]/assets/jobs/[jobId]/route";
import * as setRoute from "../../app/api/clusters/[id]/assets/[setId]/route";
import * as diffRoute from "../../app/api/clusters/[id]/assets/[setId]/diff/route";
import * as downloadRoute from "../../app/api/clusters/[id]/assets/[setId]/download/route";
import type { RenderJobView } from "./schemas";
import type { AssetSetView } from "./store";
import { testKeyPair } from "../../test/ssh-key";

let db: TempDb;
let admin: Signed;
let lead: Signed;
let clusterId: string;

beforeAll(async () => {
  db = await createTempDb();
  admin = await signIn(await createActor("admin"));
  lead = await signIn(await createActor("lead"));
  const key = testKeyPair();
  clusterId = (await createCluster({ definition: exampleDefinition({ name: "tab", hosts: 4 }), secrets: { "admin-key": { privateKey: key.private } } })).id;
});
afterAll(() => db.cleanup());

async function render(body: unknown): Promise<RenderJobView> {
  const res = await call(setsRoute.POST as Handler, { method: "POST", path: `/api/clusters/${clusterId}/assets`, params: { id: clusterId }, signed: admin, body: JSON.stringify(body) });
  expect(res.status).toBe(202);
  let job = (await res.json()) as RenderJobView;
  const seen: number[] = [];
  for (let i = 0; i < 400 && job.status === "running"; i++) {
    await new Promise((r) => setTimeout(r, 25));
    const r = await call(jobRoute.GET as Handler, { method: "GET", path: "", params: { id: clusterId, jobId: job.id }, signed: lead });
    job = (await r.json()) as RenderJobView;
    seen.push(job.done);
  }
  expect(job.status).toBe("done");
  expect(seen.length).toBeGreaterThan(0);
  return job;
}

describe("the Assets API", () => {
  it("renders in the background with progress, then lists and shows the set without secrets", async () => {
    const job = await render({});
    expect(job.done).toBe(job.total);
    expect(job.result?.version).toBe(1);
    const list = await call(setsRoute.GET as Handler, { method: "GET", path: "", params: { id: clusterId }, signed: lead });
    expect(((await list.json()) as { version: number }[]).map((s) => s.version)).toEqual([1]);
    const set = await call(setRoute.GET as Handler, { method: "GET", path: "", params: { id: clusterId, setId: job.result?.id ?? "" }, signed: lead });
    const body = (await set.json()) as AssetSetView;
    expect(body.assets.find((a) => a.path === "tls/apiserver.crt")?.certificate?.subject).toBe("CN=kube-apiserver");
    expect(JSON.stringify(body)).not.toContain("PRIVATE KEY");
  });

  it("reports field problems for bad options and refuses renders by non-admins", async () => {
    const bad = await call(setsRoute.POST as Handler, { method: "POST", path: "", params: { id: clusterId }, signed: admin, body: JSON.stringify({ caValidityDays: "long", leafValidityDays: 0 }) });
    expect(bad.status).toBe(422);
    const paths = ((await bad.json()) as { error: { details: { errors: { path: string }[] } } }).error.details.errors.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(["caValidityDays", "leafValidityDays"]));
    // The key algorithm is the cluster's definition's, not a render option.
    const keyType = await call(setsRoute.POST as Handler, { method: "POST", path: "", params: { id: clusterId }, signed: admin, body: JSON.stringify({ keyType: "ecdsa" }) });
    expect(keyType.status).toBe(422);
    const byLead = await call(setsRoute.POST as Handler, { method: "POST", path: "", params: { id: clusterId }, signed: lead, body: "{}" });
    expect(byLead.status).toBe(403);
  });

  it("diffs two renders and downloads private keys only for admins", async () => {
    const sets = (await (await call(setsRoute.GET as Handler, { method: "GET", path: "", params: { id: clusterId }, signed: lead })).json()) as { id: string }[];
    const v2 = await render({ leafValidityDays: 90 });
    const first = sets[0]?.id ?? "";
    const second = v2.result?.id ?? "";
    const diff = await call(diffRoute.GET as Handler, { method: "GET", path: `/api/x?against=${first}`, params: { id: clusterId, setId: second }, signed: lead });
    const entries = ((await diff.json()) as { entries: { path: string; status: string }[] }).entries;
    expect(entries.find((e) => e.path === "tls/apiserver.crt")?.status).toBe("changed");
    expect(entries.find((e) => e.path === "kubelet/kubelet.service")?.status).toBe("unchanged");

    const forbidden = await call(downloadRoute.GET as Handler, { method: "GET", path: "/api/x?secrets=1", params: { id: clusterId, setId: second }, signed: lead });
    expect(forbidden.status).toBe(403);
    const dir = mkdtempSync(path.join(tmpdir(), "bootdeck-dl-"));
    for (const [who, q] of [[lead, ""], [admin, "?secrets=1"]] as const) {
      const res = await call(downloadRoute.GET as Handler, { method: "GET", path: `/api/x${q}`, params: { id: clusterId, setId: second }, signed: who });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-disposition")).toMatch(/attachment; filename="tab-assets-v2(-public)?\.tar\.gz"/);
      const file = path.join(dir, `${q ? "all" : "public"}.tar.gz`);
      writeFileSync(file, Buffer.from(await res.arrayBuffer()));
      const listing = execFileSync("tar", ["-tzf", file], { encoding: "utf8" });
      expect(listing).toContain("tls/ca.crt");
      if (q) expect(listing).toContain("tls/ca.key");
      else expect(listing).not.toContain(".key");
    }
    rmSync(dir, { recursive: true, force: true });
  });
});
