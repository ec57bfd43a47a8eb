"use client";
// The node inspector's host part, under the selected cell: what phase 1 found on the host, what its
// preflight said (with the fix-it hints), and its pods from the page's live stream.
import { knownPods } from "@/lib/clusters/live-rows";
import type { RunHost } from "@/lib/engine/queries";
import { useLiveCache } from "../clusters/live-tables";
import { HostFactsLine } from "../hosts/host-facts";

const severityStyle = { error: "text-red-700", warning: "text-amber-700", ok: "text-green-700" } as const;
const severityIcon = { error: "✕", warning: "!", ok: "✓" } as const;

export function HostInspector({ clusterId, host }: { clusterId: string; host: RunHost }) {
  const live = useLiveCache(clusterId);
  const pods = knownPods(
    Object.values(live.pods).filter((p) => p.node === host.name),
    live.nodes,
  ).rows.sort((a, b) => a.pod.namespace.localeCompare(b.pod.namespace) || a.pod.name.localeCompare(b.pod.name));
  return (
    <div className="space-y-2 border-t border-slate-100 pt-2 text-sm" data-testid={`host-inspector-${host.name}`}>
      <h3 className="font-medium">
        {host.name} <span className="font-normal text-slate-500">({host.role}, {host.address})</span>
      </h3>
      <HostFactsLine facts={host.facts} />
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
          pods.map(({ pod: p, doubt }) => (
            <span key={p.uid} className={`mr-2 font-mono text-xs ${doubt ? "text-slate-600" : p.status === "Running" && p.ready === p.containers ? "text-green-700" : "text-red-700"}`}>
              {p.namespace}/{p.name} {p.ready}/{p.containers} {doubt ? `Unknown (listed ${p.status}; node ${doubt.why === "gone" ? "gone" : "not Ready"})` : p.status}
              {p.restarts ? ` (${p.restarts} restarts)` : ""}
            </span>
          ))
        )}
      </div>
    </div>
  );
}
