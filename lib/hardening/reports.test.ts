// Reports of other suites, read as their tools write them. The JUnit fixture is a real run's report
// (upstream's conformance suite against a lab cluster, 47 `[sig-network]` specs with one failure),
// cut to its run specs and three skipped ones. kube-bench's and Trivy's are written here after the
// structures their JSON writers encode (kube-bench's OverallControls; Trivy's compliance SummaryReport).
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testKeyPair } from "../../test/ssh-key";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { exampleDefinition } from "../cluster/example";
import { createCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { clusterReports, recordReport } from "./report-store";
import { MAX_FAILURES, parseReport } from "./reports";

const ginkgoJunit = readFileSync(path.join(__dirname, "__fixtures__", "ginkgo-junit.xml"), "utf8");

const kubeBench = (fails: number) =>
  JSON.stringify({
    Controls: [
      {
        id: "1",
        version: "cis-1.10",
        detected_version: "1.31",
        text: "Control Plane Security Configuration",
        node_type: "master",
        tests: [
          {
            section: "1.2",
            desc: "API Server",
            results: [
              { test_number: "1.2.1", test_desc: "Ensure that the --anonymous-auth argument is set to false (Manual)", status: "WARN", scored: false },
              { test_number: "1.2.6", test_desc: "Ensure that the --kubelet-certificate-authority argument is set as appropriate (Automated)", status: fails > 0 ? "FAIL" : "PASS", scored: true },
              { test_number: "1.2.18", test_desc: "Ensure that the --profiling argument is set to false (Automated)", status: "PASS", scored: true },
            ],
          },
        ],
        total_pass: fails > 0 ? 1 : 2,
        total_fail: fails,
        total_warn: 1,
        total_info: 0,
      },
    ],
    Totals: { total_pass: fails > 0 ? 1 : 2, total_fail: fails, total_warn: 1, total_info: 0 },
  });

const trivy = JSON.stringify({
  ID: "k8s-cis-1.23",
  Title: "CIS Kubernetes Benchmarks v1.23",
  SummaryControls: [
    { ID: "1.2.1", Name: "Ensure that the --anonymous-auth argument is set to false", Severity: "MEDIUM", TotalFail: 1 },
    { ID: "1.2.18", Name: "Ensure that the --profiling argument is set to false", Severity: "LOW", TotalFail: 0 },
    { ID: "1.2.19", Name: "Ensure that the --audit-log-path argument is set", Severity: "LOW", TotalFail: 0 },
    { ID: "5.3.1", Name: "Ensure that the CNI in use supports Network Policies", Severity: "MEDIUM" },
  ],
});

describe("parseReport", () => {
  it("reads ginkgo's JUnit: the specs that ran, the one that failed with its message, the ones left out; suite nodes are not specs", () => {
    const r = parseReport(ginkgoJunit);
    expect(r).toMatchObject({ kind: "conformance", tool: "junit", title: "Kubernetes e2e suite", passed: 46, failed: 1, warned: 0, skipped: 3, ranAt: null });
    expect(r.failures).toEqual([
      {
        id: "[sig-network] Proxy version v1 should proxy through a service and a pod [Conformance] [sig-network, Conformance]",
        message: expect.stringMatching(/^Couldn't delete ns: "proxy-\d+": Delete .*connection reset by peer/),
      },
    ]);
  });

  it("reads a JUnit writer that marks results only with child elements (sonobuoy, older ginkgo), and a failed suite node fails the run", () => {
    const xml = `<?xml version="1.0"?><testsuite name="e2e" tests="4" timestamp="2026-12-01T10:00:00Z">
      <testcase name="[It] a passes"></testcase>
      <testcase name="[It] b fails"><failure message="expected 1&#10;got 2">stack</failure></testcase>
      <testcase name="[It] c is left out"><skipped/></testcase>
      <testcase name="[SynchronizedBeforeSuite]"><failure message="no nodes Ready"/></testcase>
    </testsuite>`;
    const r = parseReport(xml);
    expect(r).toMatchObject({ passed: 1, failed: 2, skipped: 1, title: "e2e", ranAt: "2026-12-01T10:00:00.000Z" });
    expect(r.failures).toEqual([
      { id: "b fails", message: "expected 1" },
      { id: "[SynchronizedBeforeSuite]", message: "no nodes Ready" },
    ]);
  });

  it("reads kube-bench's --json: its totals, WARN as warned, the failed checks by number", () => {
    expect(parseReport(kubeBench(1))).toEqual({
      kind: "cis",
      tool: "kube-bench",
      title: "CIS Kubernetes Benchmark (cis-1.10)",
      passed: 1,
      failed: 1,
      warned: 1,
      skipped: 0,
      failures: [{ id: "1.2.6", message: "Ensure that the --kubelet-certificate-authority argument is set as appropriate (Automated)" }],
      ranAt: null,
    });
  });

  it("reads Trivy's compliance summary: a control with no check is manual, counted as warned", () => {
    expect(parseReport(trivy)).toMatchObject({ kind: "cis", tool: "trivy", title: "CIS Kubernetes Benchmarks v1.23 (k8s-cis-1.23)", passed: 2, failed: 1, warned: 1, failures: [{ id: "1.2.1" }] });
  });

  it("keeps the first failures only", () => {
    const cases = Array.from({ length: MAX_FAILURES + 10 }, (_, i) => `<testcase name="[It] spec ${i}" status="failed"><failure message="m"/></testcase>`).join("");
    const r = parseReport(`<testsuites><testsuite name="s">${cases}</testsuite></testsuites>`);
    expect(r.failed).toBe(MAX_FAILURES + 10);
    expect(r.failures).toHaveLength(MAX_FAILURES);
  });

  it.each([
    ["JSON of another kind", '{"items":[]}', 422],
    ["text", "PASS 12, FAIL 0", 422],
    ["XML that is not JUnit", "<html><body>hi</body></html>", 422],
    ["JUnit with no test case", "<testsuite name='s'></testsuite>", 422],
    ["XML that is not well-formed", "<testsuite name='s'><testcase name='a'></testsuite>", 422],
    ["a DOCTYPE with entities", '<?xml version="1.0"?><!DOCTYPE t [<!ENTITY a "aaaa">]><testsuite name="&a;"><testcase name="x"/></testsuite>', 422],
    ["a NUL", "<testsuite>\u0000</testsuite>", 400],
  ])("refuses %s with a 4xx that says what it reads", (_, text, status) => {
    expect(() => parseReport(text)).toThrow(expect.objectContaining({ status }));
  });
});

describe("recorded reports", () => {
  let db: TempDb;
  let clusterId: string;
  beforeAll(async () => {
    db = await createTempDb();
    clusterId = (await createCluster({ definition: exampleDefinition({ name: "judged", hosts: 2 }), secrets: { "admin-key": { privateKey: testKeyPair().private } } })).id;
  });
  afterAll(async () => db?.cleanup());

  it("none at first; then the newest of each kind, audited with who uploaded it", async () => {
    expect(await clusterReports({ clusterId })).toEqual({ conformance: null, cis: null });
    await recordReport({ clusterId, text: kubeBench(1), user: { username: "alice" } });
    const conformance = await recordReport({ clusterId, text: ginkgoJunit, user: { username: "bob" }, via: "cli" });
    const cis = await recordReport({ clusterId, text: kubeBench(0), user: { username: "alice" } });
    const now = await clusterReports({ clusterId });
    expect(now.conformance).toEqual(conformance);
    expect(now.cis).toEqual(cis);
    expect(now.cis).toMatchObject({ failed: 0, passed: 2, uploadedBy: "alice", failures: [] });
    const audit = await getDb().auditEvent.findMany({ where: { action: "cluster.report" }, orderBy: { id: "asc" } });
    expect(audit.map((a) => [a.username, a.target, JSON.parse(a.details)])).toContainEqual(["bob", clusterId, { report: conformance.id, kind: "conformance", tool: "junit", passed: 46, failed: 1, via: "cli" }]);
  });

  it("keeps nothing from a report it cannot read, and is a 404 for an unknown cluster", async () => {
    const before = await getDb().clusterReport.count();
    await expect(recordReport({ clusterId, text: "{}", user: { username: "alice" } })).rejects.toMatchObject({ status: 422 });
    await expect(recordReport({ clusterId: "cl_AAAAAAAAAAAAAAAA", text: trivy, user: { username: "alice" } })).rejects.toMatchObject({ status: 404 });
    await expect(clusterReports({ clusterId: "cl_AAAAAAAAAAAAAAAA" })).rejects.toMatchObject({ status: 404 });
    expect(await getDb().clusterReport.count()).toBe(before);
  });
});
