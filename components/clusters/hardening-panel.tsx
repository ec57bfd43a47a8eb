"use client";
// The cluster page's hardening at a glance: Secrets encrypted at rest (the key's name and age, never
// the key), the API audit log, Pod Security's defaults, profiling; read from the newest asset set.
import { useQuery } from "@tanstack/react-query";
import { hardeningQueryKey, type Hardening } from "@/lib/hardening/schemas";
import { api } from "../api-client";

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

export function HardeningPanel({ clusterId }: { clusterId: string }) {
  const q = useQuery({ queryKey: hardeningQueryKey(clusterId), queryFn: () => api<Hardening>(`/api/clusters/${clusterId}/hardening`) });
  return (
    <section className="card" data-testid="hardening">
      <h2 className="mb-2 font-semibold">Hardening</h2>
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
