"use client";
// The Assets tab: render, list every file with its purpose, certificate details, diff two renders, download.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { assetQueryKeys } from "@/lib/assets/schemas";
import type { AssetSetSummary, AssetSetView } from "@/lib/assets/store";
import { api } from "../api-client";
import { FileText } from "../file-content";
import { Time, useTimeZone } from "../time";
import { formatTime } from "../time-format";
import { AssetDiff } from "./asset-diff";
import { CertificateDetailsView } from "./certificate-details";
import { RenderPanel } from "./render-panel";

type Props = { clusterId: string; canRender: boolean; canDownloadSecrets: boolean };

export function AssetsTab({ clusterId, canRender, canDownloadSecrets }: Props) {
  const [selected, setSelected] = useState<string | undefined>();
  const [compareWith, setCompareWith] = useState<string>("");
  const sets = useQuery({ queryKey: assetQueryKeys.sets(clusterId), queryFn: () => api<AssetSetSummary[]>(`/api/clusters/${clusterId}/assets`) });
  const current = selected ?? sets.data?.[0]?.id;
  const zone = useTimeZone();

  return (
    <div className="space-y-6">
      <div className="flex items-center justify-between">
        <h1 className="text-2xl font-bold">Assets</h1>
        <Link className="btn" href={`/clusters/${clusterId}`}>
          Back to cluster
        </Link>
      </div>
      {canRender && (
        <RenderPanel
          clusterId={clusterId}
          onRendered={(id) => {
            setSelected(id);
            setCompareWith("");
          }}
        />
      )}
      {sets.isPending && <p className="text-sm text-slate-500">Loading…</p>}
      {sets.isError && <p className="text-sm text-red-600">Could not load the asset sets: {sets.error.message}</p>}
      {sets.data && sets.data.length === 0 && <p className="text-sm text-slate-500" data-testid="no-assets">Nothing rendered yet.{canRender ? " Render the assets above." : ""}</p>}
      {sets.data && sets.data.length > 0 && current && (
        <section className="card space-y-3">
          <div className="flex flex-wrap items-end gap-4 text-sm">
            <label className="flex flex-col gap-1">
              Version
              <select className="input" value={current} onChange={(e) => setSelected(e.target.value)} data-testid="asset-set-select">
                {sets.data.map((s) => (
                  <option key={s.id} value={s.id}>
                    v{s.version} · {formatTime(String(s.createdAt), zone)} · {s.options.encryptionAlgorithm}
                    {s.options.importedCa ? " · imported CA" : ""} · {s.fileCount} files
                  </option>
                ))}
              </select>
            </label>
            <label className="flex flex-col gap-1">
              Compare with
              <select className="input" value={compareWith} onChange={(e) => setCompareWith(e.target.value)} data-testid="asset-compare-select">
                <option value="">—</option>
                {sets.data
                  .filter((s) => s.id !== current)
                  .map((s) => (
                    <option key={s.id} value={s.id}>
                      v{s.version}
                    </option>
                  ))}
              </select>
            </label>
            <a className="btn" href={`/api/clusters/${clusterId}/assets/${current}/download`} data-testid="download-public">
              Download .tar.gz (no private keys)
            </a>
            {canDownloadSecrets && (
              <a className="btn" href={`/api/clusters/${clusterId}/assets/${current}/download?secrets=1`} data-testid="download-secrets">
                Download with private keys
              </a>
            )}
          </div>
          {compareWith ? <AssetDiff clusterId={clusterId} from={compareWith} to={current} /> : <AssetFiles clusterId={clusterId} setId={current} />}
        </section>
      )}
    </div>
  );
}

function AssetFiles({ clusterId, setId }: { clusterId: string; setId: string }) {
  const [open, setOpen] = useState<string | undefined>();
  const q = useQuery({ queryKey: assetQueryKeys.set(clusterId, setId), queryFn: () => api<AssetSetView>(`/api/clusters/${clusterId}/assets/${setId}`) });
  if (q.isPending) return <p className="text-sm text-slate-500">Loading files…</p>;
  if (q.isError) return <p className="text-sm text-red-600">Could not load the files: {q.error.message}</p>;
  return (
    <table className="min-w-full text-sm" data-testid="asset-files">
      <thead className="text-left text-xs uppercase text-slate-500">
        <tr>
          <th className="p-1">File</th>
          <th className="p-1">Purpose</th>
          <th className="p-1 text-right">Size</th>
        </tr>
      </thead>
      <tbody>
        {q.data.assets.map((a) => (
          <FileRow key={a.path} asset={a} open={open === a.path} onToggle={() => setOpen(open === a.path ? undefined : a.path)} />
        ))}
      </tbody>
    </table>
  );
}

function FileRow({ asset: a, open, onToggle }: { asset: AssetSetView["assets"][number]; open: boolean; onToggle: () => void }) {
  const expiring = a.certificate && a.certificate.daysLeft < 30;
  return (
    <>
      <tr className="border-t border-slate-100 align-top" data-testid="asset-file">
        <td className="p-1 font-mono text-xs">
          {/* Every file opens: its content (a certificate's details too); a secret says it stays hidden. */}
          <button className="text-left text-indigo-700 hover:underline" onClick={onToggle} aria-expanded={open} data-testid={`asset-open-${a.path}`}>
            {a.path}
          </button>
          {a.sensitive && <span className="ml-2 rounded bg-amber-100 px-1 text-[10px] text-amber-900">sensitive</span>}
        </td>
        <td className="p-1">
          {a.purpose}
          {a.certificate && <span className={`ml-2 text-xs ${expiring ? "text-red-700" : "text-slate-500"}`}>expires <Time iso={a.certificate.notAfter} date /></span>}
        </td>
        <td className="p-1 text-right text-xs text-slate-500">{a.size.toLocaleString()} B</td>
      </tr>
      {open && (
        <tr>
          <td colSpan={3} className="space-y-2 bg-slate-50 p-2">
            {a.certificate && <CertificateDetailsView cert={a.certificate} />}
            <FileText path={a.path} content={a.content} sensitive={a.sensitive} testId={`asset-content-${a.path}`} />
          </td>
        </tr>
      )}
    </>
  );
}
