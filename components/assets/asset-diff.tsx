"use client";
// What changed between two renders: text diffs for public files, checksums only for sensitive ones.
import { useQuery } from "@tanstack/react-query";
import { assetQueryKeys } from "@/lib/assets/schemas";
import type { AssetDiffEntry } from "@/lib/assets/store";
import { api } from "../api-client";

type DiffResponse = { from: { version: number }; to: { version: number }; entries: AssetDiffEntry[] };

const lineClass = (l: string) => (l.startsWith("+") ? "text-green-700" : l.startsWith("-") ? "text-red-700" : l === "@@" ? "text-slate-600" : "text-slate-600");

export function AssetDiff({ clusterId, from, to }: { clusterId: string; from: string; to: string }) {
  const q = useQuery({
    queryKey: assetQueryKeys.diff(clusterId, from, to),
    queryFn: () => api<DiffResponse>(`/api/clusters/${clusterId}/assets/${to}/diff?against=${from}`),
  });
  if (q.isPending) return <p className="text-sm text-slate-500">Comparing…</p>;
  if (q.isError) return <p className="text-sm text-red-600">Could not compare: {q.error.message}</p>;
  const changed = q.data.entries.filter((e) => e.status !== "unchanged");
  const unchanged = q.data.entries.length - changed.length;
  return (
    <div className="space-y-2" data-testid="asset-diff">
      <p className="text-sm text-slate-600">
        Version {q.data.from.version} → {q.data.to.version}: {changed.length} file{changed.length === 1 ? "" : "s"} differ, {unchanged} unchanged.
      </p>
      {changed.map((e) => (
        <details key={e.path} className="rounded border border-slate-200 p-2" data-testid="diff-entry">
          <summary className="cursor-pointer text-sm">
            <span className={`mr-2 rounded px-1 text-xs ${e.status === "added" ? "bg-green-100" : e.status === "removed" ? "bg-red-100" : "bg-amber-100"}`}>{e.status}</span>
            <span className="font-mono">{e.path}</span>
            {e.sensitive && <span className="ml-2 text-xs text-slate-500">(sensitive: compared by checksum only)</span>}
          </summary>
          {e.diff !== undefined && (
            <pre className="mt-2 max-h-96 overflow-auto text-xs">
              {e.diff.split("\n").map((l, i) => (
                <div key={i} className={lineClass(l)}>
                  {l}
                </div>
              ))}
            </pre>
          )}
        </details>
      ))}
    </div>
  );
}
