"use client";
// The cluster page's hardening at a glance: Secrets encrypted at rest (the key's name and age, never
// the key), the API audit log, Pod Security's defaults, profiling; read from the asset set it runs.
// The key's rotation is planned here and confirmed on the run page.
import { useQuery } from "@tanstack/react-query";
import { hardeningQueryKey, type Hardening } from "@/lib/hardening/schemas";
import { api } from "../api-client";
import { useCan } from "../current-user";
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
    </section>
  );
}
