"use client";
// The node inspector's host part, under the selected cell: what phase 1 found on the host, what its
// preflight said (with the fix-it hints), and its pods from the page's live stream.
import type { RunHost } from "@/lib/engine/queries";
import { useLiveCache } from "../clusters/live-tables";

const severityStyle = { error: "text-red-700", warning: "text-amber-700", ok: "text-green-700" } as const;
const severityIcon = { error: "✕", warning: "!", ok: "✓" } as const;

export function HostInspector({ clusterId, host }: { clusterId: string; host: RunHost }) {
  const live = useLiveCache(clusterId);
  const pods = Object.values(live.pods)
    .filter((p) => p.node === host.name)
    .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
  const f = host.facts;
  return (
    <div className="space-y-2 border-t border-slate-100 pt-2 text-sm" data-testid={`host-inspector-${host.name}`}>
      <h3 className="font-medium">
        {host.name} <span className="font-normal text-slate-500">({host.role}, {host.address})</span>
      </h3>
      {f ? (
        <p className="text-slate-700" data-testid="host-facts">
          {f.os} · kernel {f.kernel} · {f.arch} · {f.cpus} CPUs · {Math.round(f.memKb / 1024)} MiB · init {f.init} · clock {f.clockOffsetS >= 0 ? "+" : ""}
          {f.clockOffsetS.toFixed(2)} s · {f.addresses.map((a) => `${a.iface} ${a.cidr}`).join(", ")}
        </p>
      ) : (
        <p className="text-slate-500">No facts gathered yet (phase 1 records them).</p>
      )}
      {host.findings && (
        <ul className="space-y-0.5" data-testid="host-findings">
          {host.findings.map((x) => (
            <li key={x.check} className={severityStyle[x.severity]}>
              <span aria-hidden>{severityIcon[x.severity]}</span> {x.message}
              {x.hint && x.severity !== "ok" && <span className="text-slate-600"> — {x.hint}</span>}
            </li>
          ))}
        </ul>
      )}
      <div data-testid="host-pods">
        <span className="font-medium">Pods on {host.name}:</span>{" "}
        {pods.length === 0 ? (
          <span className="text-slate-500">{live.api?.state === "connected" ? "none" : "not known while the API is not watched"}</span>
        ) : (
          pods.map((p) => (
            <span key={p.uid} className={`mr-2 font-mono text-xs ${p.status === "Running" && p.ready === p.containers ? "text-green-700" : "text-red-700"}`}>
              {p.namespace}/{p.name} {p.ready}/{p.containers} {p.status}
              {p.restarts ? ` (${p.restarts} restarts)` : ""}
            </span>
          ))
        )}
      </div>
    </div>
  );
}
