"use client";
// The cluster page's hardening at a glance: Secrets encrypted at rest (the key's name and age, never
// the key), the API audit log, Pod Security's defaults, profiling; read from the asset set it runs.
// The key's rotation is planned here and confirmed on the run page. Below, the newest conformance
// and CIS benchmark reports someone ran against the cluster and uploaded.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { hardeningQueryKey, reportsQueryKey, type ClusterReports, type Hardening, type ReportSummary } from "@/lib/hardening/schemas";
import { api } from "../api-client";
import { useCan } from "../current-user";
import { Time } from "../time";
import { usePlan } from "./recovery-panel";

type Row = { item: string; ok: boolean; text: string };

export function hardeningRows(h: Hardening): Row[] {
  const e = h.encryption;
  const a = h.audit;
  const ps = h.podSecurity;
  return [
    {
      item: "Secrets at rest",
      ok: e.state === "encrypted",
      text:
        e.state === "encrypted"
          ? `encrypted (${e.provider}, key ${e.keyName ?? "unnamed"}${e.keyAgeDays !== undefined ? `, ${e.keyAgeDays} day${e.keyAgeDays === 1 ? "" : "s"} old` : ""})`
          : e.state === "plain"
            ? "written in plain text: the set predates encryption (its key only reads)"
            : "no encryption configuration in this set",
    },
    {
      item: "API audit log",
      ok: a.on,
      text: a.on ? `${a.log} on every master, rotated at ${a.maxSizeMb} MB, ${a.maxBackups} files, ${a.maxAgeDays} days` : "off in this set",
    },
    {
      item: "Pod Security",
      ok: ps !== null && ps.enforce !== "privileged",
      text: ps ? `${ps.enforce} enforced, ${ps.warn} warned, ${ps.audit} audited; exempt: ${ps.exemptNamespaces.join(", ") || "none"}` : "no defaults in this set (every namespace privileged)",
    },
    { item: "Profiling", ok: h.profilingOff, text: h.profilingOff ? "off on the API server, controller-manager and scheduler" : "on" },
  ];
}

export function HardeningPanel({ clusterId, notYet }: { clusterId: string; /** Why the running cluster's key cannot be rotated yet. */ notYet?: string }) {
  const q = useQuery({ queryKey: hardeningQueryKey(clusterId), queryFn: () => api<Hardening>(`/api/clusters/${clusterId}/hardening`) });
  const canRotate = useCan("cluster:recover");
  const plan = usePlan(clusterId);
  return (
    <section className="card" data-testid="hardening">
      <div className="mb-2 flex items-center justify-between">
        <h2 className="font-semibold">Hardening</h2>
        {canRotate && (
          <button
            className="btn"
            data-testid="plan-rotate-key"
            disabled={plan.isPending || !!notYet || q.data?.encryption.state === "none"}
            onClick={() => plan.mutate({ type: "rotate-encryption-key", confirm: true })}
            title={notYet ?? "A new key for Secrets at rest: every API server reads with it, then writes with it, every Secret is stored again, the old key is dropped; the API stays up. You review the plan first"}
          >
            Rotate encryption key…
          </button>
        )}
      </div>
      {plan.isError && <p className="text-sm text-red-600">{plan.error.message}</p>}
      {q.isError && <p className="text-sm text-red-600">{q.error.message}</p>}
      {q.data &&
        (q.data.assetSetVersion === null ? (
          <p className="text-sm text-slate-500">No assets rendered yet: the first render (on the Assets tab, or the bootstrap's) sets these.</p>
        ) : (
          <>
            <p className="mb-1 text-xs text-slate-500">From asset set v{q.data.assetSetVersion} (docs/hardening.md says what each means)</p>
            <table className="w-full text-sm">
              <tbody>
                {hardeningRows(q.data).map((r) => (
                  <tr key={r.item} className="border-t" data-testid={`hardening-${r.item.toLowerCase().replaceAll(" ", "-")}`} data-ok={r.ok}>
                    <td className="p-1 font-medium">{r.item}</td>
                    <td className={`p-1 ${r.ok ? "text-green-800" : "text-amber-800"}`}>{r.text}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        ))}
      <ReportsTable clusterId={clusterId} />
    </section>
  );
}

/** What a report's counts say, in its tool's words. */
export function reportText(r: ReportSummary): string {
  const more = r.kind === "conformance" ? `${r.skipped} not run` : r.tool === "kube-bench" ? `${r.warned} WARN, ${r.skipped} INFO` : `${r.warned} manual`;
  return r.kind === "conformance" ? `${r.passed} passed, ${r.failed} failed, ${more}` : `${r.passed} PASS, ${r.failed} FAIL, ${more}`;
}

function ReportsTable({ clusterId }: { clusterId: string }) {
  const q = useQuery({ queryKey: reportsQueryKey(clusterId), queryFn: () => api<ClusterReports>(`/api/clusters/${clusterId}/reports`) });
  const canUpload = useCan("report:upload");
  const qc = useQueryClient();
  const upload = useMutation({
    mutationFn: async (file: File) => api<ReportSummary>(`/api/clusters/${clusterId}/reports`, { method: "POST", text: await file.text() }),
    onSuccess: () => qc.invalidateQueries({ queryKey: reportsQueryKey(clusterId) }),
  });
  const rows: [string, "conformance" | "cis", string][] = [
    ["Conformance", "conformance", "upstream's conformance suite (ginkgo's or sonobuoy's JUnit XML)"],
    ["CIS benchmark", "cis", "kube-bench's --json, or Trivy's compliance summary"],
  ];
  return (
    <div className="mt-3" data-testid="reports">
      <div className="mb-1 flex items-center justify-between">
        <h3 className="text-sm font-semibold">Judged by other suites</h3>
        {canUpload && (
          <label className={`btn ${upload.isPending ? "opacity-60" : ""}`} title="A report of a suite run against this cluster: JUnit XML from the conformance suite, kube-bench's JSON or Trivy's compliance summary (docs/hardening.md)">
            {upload.isPending ? "Reading…" : "Upload report…"}
            <input
              type="file"
              accept=".xml,.json,application/json,text/xml"
              className="sr-only"
              data-testid="report-file"
              disabled={upload.isPending}
              onChange={(e) => {
                const f = e.target.files?.[0];
                if (f) upload.mutate(f);
                e.target.value = "";
              }}
            />
          </label>
        )}
      </div>
      {upload.isError && <p className="text-sm text-red-600" role="alert">{upload.error.message}</p>}
      {q.isError && <p className="text-sm text-red-600">{q.error.message}</p>}
      {q.data && (
        <table className="w-full text-sm">
          <tbody>
            {rows.map(([item, kind, what]) => {
              const r = q.data[kind];
              return (
                <tr key={kind} className="border-t align-top" data-testid={`report-${kind}`} data-ok={r ? r.failed === 0 : undefined}>
                  <td className="p-1 font-medium">{item}</td>
                  <td className="p-1">
                    {r ? (
                      <>
                        <span className={r.failed === 0 ? "text-green-800" : "text-amber-800"}>
                          {r.title}: {reportText(r)}
                        </span>
                        <span className="block text-xs text-slate-500">
                          {r.ranAt ? <>ran <Time iso={r.ranAt} date />, </> : null}uploaded <Time iso={r.uploadedAt} date /> by {r.uploadedBy}
                        </span>
                        {r.failures.length > 0 && (
                          <details className="text-xs">
                            <summary className="cursor-pointer">{r.failed === r.failures.length ? `What failed (${r.failed})` : `The first ${r.failures.length} of ${r.failed} that failed`}</summary>
                            <ul className="ml-4 list-disc">
                              {r.failures.map((f, i) => (
                                <li key={i}>
                                  <span className="font-mono">{f.id}</span>
                                  {f.message && <span className="text-slate-600">: {f.message}</span>}
                                </li>
                              ))}
                            </ul>
                          </details>
                        )}
                      </>
                    ) : (
                      <span className="text-slate-500">none recorded: run {what} and upload its report</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}
