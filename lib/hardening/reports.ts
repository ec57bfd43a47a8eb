// Reports of suites Bootdeck did not write, as their tools write them, read into one summary:
// upstream's conformance suite (ginkgo's or sonobuoy's JUnit XML), the CIS Kubernetes Benchmark
// (kube-bench's `--json`, or Trivy's compliance summary: `trivy k8s --compliance k8s-cis-… --report
// summary --format json`). Pure: the upload route and `bootdeck cluster report` both parse with it.
import { XMLParser } from "fast-xml-parser";
import { z } from "zod";
import { AppError } from "../http/errors";
import { badText } from "../text";
import type { ReportSummary } from "./schemas";

export type ParsedReport = Omit<ReportSummary, "id" | "uploadedBy" | "uploadedAt">;

/** Failures kept per report: enough to see what to fix; the whole report stays with whoever ran it. */
export const MAX_FAILURES = 50;
const clip = (s: string, n = 300) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

const unrecognised = () =>
  new AppError(
    422,
    "unrecognised_report",
    "Not a report Bootdeck reads: give ginkgo's or sonobuoy's JUnit XML (conformance), kube-bench's --json output, or Trivy's compliance summary (--report summary --format json)",
  );

/** The report's summary; a 4xx that says what is wrong when it is none of the formats read, or holds text no field may (NUL, a lone surrogate). */
export function parseReport(text: string): ParsedReport {
  const r = parseAny(text);
  const bad = badText(r);
  if (bad) throw new AppError(400, "bad_text", `The report contains ${bad}`);
  return r;
}

function parseAny(text: string): ParsedReport {
  // On the whole text, not only on the summary with badText below: a NUL in a part of the report the
  // summary does not keep would otherwise pass unseen.
  if (text.includes("\u0000")) throw new AppError(400, "bad_text", "The report contains a NUL character");
  const t = text.trimStart();
  if (t.startsWith("<")) return parseJunit(t);
  let data: unknown;
  try {
    data = JSON.parse(t);
  } catch {
    throw unrecognised();
  }
  const kb = kubeBench.safeParse(data);
  if (kb.success) return fromKubeBench(kb.data);
  const tr = trivySummary.safeParse(data);
  if (tr.success) return fromTrivy(tr.data);
  throw unrecognised();
}

// ---- JUnit (ginkgo writes `status`; older writers and sonobuoy only the child elements) ----

const testcase = z.object({
  "@_name": z.string(),
  "@_status": z.string().optional(),
  failure: z.unknown().optional(),
  error: z.unknown().optional(),
  skipped: z.unknown().optional(),
});
const testsuite = z.object({ "@_name": z.string().default(""), "@_timestamp": z.string().optional(), testcase: z.array(testcase).default([]) });
const junit = z.union([
  z.object({ testsuites: z.object({ testsuite: z.array(testsuite).default([]) }) }).transform((j) => j.testsuites.testsuite),
  z.object({ testsuite: z.array(testsuite) }).transform((j) => j.testsuite),
]);

function parseJunit(xml: string): ParsedReport {
  // A JUnit report declares no entities; refusing any DOCTYPE keeps entity expansion out entirely.
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new AppError(422, "unrecognised_report", "A JUnit report with a DOCTYPE is not read (no test tool writes one)");
  let doc: unknown;
  try {
    doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@_", isArray: (name) => name === "testsuite" || name === "testcase", processEntities: true, htmlEntities: true }).parse(xml, true);
  } catch (e) {
    throw new AppError(422, "bad_report", `The JUnit report is not well-formed XML: ${clip(e instanceof Error ? e.message : String(e), 200)}`);
  }
  const suites = junit.safeParse(doc);
  if (!suites.success) throw unrecognised();
  const cases = suites.data.flatMap((s) => s.testcase);
  // ginkgo reports its suite nodes (before and after the specs) as test cases too: specs are the
  // "[It]" ones. A suite node that failed still fails the run.
  const ginkgo = cases.some((c) => c["@_name"].startsWith("[It] "));
  const state = (c: z.infer<typeof testcase>) => {
    const s = c["@_status"]?.toLowerCase();
    if (s) return s === "passed" ? "passed" : s === "skipped" || s === "pending" ? "skipped" : "failed";
    return c.failure !== undefined || c.error !== undefined ? "failed" : c.skipped !== undefined ? "skipped" : "passed";
  };
  const specs = ginkgo ? cases.filter((c) => c["@_name"].startsWith("[It] ")) : cases;
  const failedNodes = ginkgo ? cases.filter((c) => !c["@_name"].startsWith("[It] ") && state(c) === "failed") : [];
  const failed = [...specs.filter((c) => state(c) === "failed"), ...failedNodes];
  if (!cases.length) throw new AppError(422, "empty_report", "The JUnit report has no test cases");
  const stamp = suites.data.find((s) => s["@_timestamp"])?.["@_timestamp"];
  return {
    kind: "conformance",
    tool: "junit",
    title: clip(suites.data.find((s) => s["@_name"])?.["@_name"] ?? "JUnit report", 120),
    passed: specs.filter((c) => state(c) === "passed").length,
    failed: failed.length,
    warned: 0,
    skipped: specs.filter((c) => state(c) === "skipped").length,
    failures: failed.slice(0, MAX_FAILURES).map((c) => ({ id: clip(c["@_name"].replace(/^\[It\] /, "")), message: clip(failureMessage(c)) })),
    // ginkgo writes local time without a zone: taken only when the report names its zone.
    ranAt: stamp && /(Z|[+-]\d\d:?\d\d)$/.test(stamp) && !Number.isNaN(Date.parse(stamp)) ? new Date(stamp).toISOString() : null,
  };
}

function failureMessage(c: z.infer<typeof testcase>): string {
  const f = c.failure ?? c.error;
  if (typeof f === "string") return f.split("\n")[0] ?? "";
  if (f && typeof f === "object" && "@_message" in f) return String((f as Record<string, unknown>)["@_message"]).split("\n")[0] ?? "";
  return "";
}

// ---- kube-bench --json ----

const kubeBench = z.object({
  Controls: z
    .array(
      z.object({
        version: z.string().optional(),
        tests: z.array(z.object({ results: z.array(z.object({ test_number: z.string(), test_desc: z.string(), status: z.string() })).nullish() })).nullish(),
      }),
    )
    .min(1),
  Totals: z.object({ total_pass: z.number().int(), total_fail: z.number().int(), total_warn: z.number().int(), total_info: z.number().int() }),
});

function fromKubeBench(r: z.infer<typeof kubeBench>): ParsedReport {
  const results = r.Controls.flatMap((c) => (c.tests ?? []).flatMap((t) => t.results ?? []));
  const failed = results.filter((x) => x.status.toUpperCase() === "FAIL");
  const versions = [...new Set(r.Controls.map((c) => c.version).filter(Boolean))];
  return {
    kind: "cis",
    tool: "kube-bench",
    title: clip(versions.length ? `CIS Kubernetes Benchmark (${versions.join(", ")})` : "CIS Kubernetes Benchmark", 120),
    passed: r.Totals.total_pass,
    failed: r.Totals.total_fail,
    warned: r.Totals.total_warn,
    skipped: r.Totals.total_info,
    failures: failed.slice(0, MAX_FAILURES).map((x) => ({ id: clip(x.test_number, 40), message: clip(x.test_desc) })),
    ranAt: null,
  };
}

// ---- Trivy's compliance summary: a control's TotalFail is absent when no check judges it (manual) ----

const trivySummary = z.object({
  ID: z.string().min(1),
  Title: z.string().optional(),
  SummaryControls: z.array(z.object({ ID: z.string(), Name: z.string().default(""), TotalFail: z.number().int().nonnegative().optional() })).min(1),
});

function fromTrivy(r: z.infer<typeof trivySummary>): ParsedReport {
  const failed = r.SummaryControls.filter((c) => (c.TotalFail ?? 0) > 0);
  return {
    kind: "cis",
    tool: "trivy",
    title: clip(r.Title ? `${r.Title} (${r.ID})` : r.ID, 120),
    passed: r.SummaryControls.filter((c) => c.TotalFail === 0).length,
    failed: failed.length,
    warned: r.SummaryControls.filter((c) => c.TotalFail === undefined).length,
    skipped: 0,
    failures: failed.slice(0, MAX_FAILURES).map((c) => ({ id: clip(c.ID, 40), message: clip(c.Name) })),
    ranAt: null,
  };
}
