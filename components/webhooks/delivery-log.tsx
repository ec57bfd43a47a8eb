"use client";
// One endpoint's delivery log: every delivery, newest first, with its state, each attempt's answer and
// response time, the body as it was signed, and "Redeliver".
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { webhookQueryKeys, type DeliveryView, type WebhookView } from "@/lib/notify/schemas";
import { api } from "../api-client";
import { Time } from "../time";

const statusClass: Record<string, string> = { delivered: "text-green-700", failed: "text-red-600", pending: "text-amber-700", delivering: "text-amber-700" };

export function DeliveryLog({ id }: { id: string }) {
  const queryClient = useQueryClient();
  const hook = useQuery({ queryKey: [...webhookQueryKeys.list(), id], queryFn: () => api<{ webhook: WebhookView }>(`/api/webhooks/${id}`) });
  const q = useQuery({ queryKey: webhookQueryKeys.deliveries(id), queryFn: () => api<{ deliveries: DeliveryView[] }>(`/api/webhooks/${id}/deliveries`), refetchInterval: 3_000 });
  const [open, setOpen] = useState<string>();
  const [error, setError] = useState<string>();
  const redeliver = useMutation({
    mutationFn: (d: DeliveryView) => api(`/api/webhooks/${id}/deliveries/${d.id}/redeliver`, { method: "POST", body: {} }),
    onSuccess: () => {
      setError(undefined);
      return queryClient.invalidateQueries({ queryKey: webhookQueryKeys.deliveries(id) });
    },
    onError: (e) => setError(e.message),
  });

  return (
    <div className="space-y-4">
      <p className="text-sm">
        <Link href="/webhooks" className="text-indigo-700 hover:underline">
          ← Webhooks
        </Link>
      </p>
      <h1 className="text-2xl font-bold" data-testid="webhook-title">
        {hook.data ? `Deliveries to ${hook.data.webhook.name}` : "Deliveries"}
      </h1>
      {hook.data && <p className="break-all font-mono text-xs text-slate-500">{hook.data.webhook.url}</p>}
      {error && (
        <p className="text-sm text-red-600" role="alert">
          {error}
        </p>
      )}
      {(q.isPending || hook.isPending) && <p className="text-sm text-slate-500">Loading deliveries…</p>}
      {(q.isError || hook.isError) && <p className="text-sm text-red-600">Could not load the deliveries: {(q.error ?? hook.error)?.message}</p>}
      {q.data && q.data.deliveries.length === 0 && <p className="text-sm text-slate-500">Nothing was sent to this endpoint yet.</p>}
      {q.data && q.data.deliveries.length > 0 && (
        <table className="card min-w-full text-sm" data-testid="delivery-table">
          <thead className="text-left text-xs uppercase text-slate-500">
            <tr>
              <th className="p-2">#</th>
              <th className="p-2">Event</th>
              <th className="p-2">Queued</th>
              <th className="p-2">State</th>
              <th className="p-2">Answer</th>
              <th className="p-2">Response time</th>
              <th className="p-2" />
            </tr>
          </thead>
          <tbody>
            {q.data.deliveries.map((d) => (
              <DeliveryRow key={d.id} d={d} open={open === d.id} onToggle={() => setOpen(open === d.id ? undefined : d.id)} onRedeliver={() => redeliver.mutate(d)} busy={redeliver.isPending} />
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function DeliveryRow({ d, open, onToggle, onRedeliver, busy }: { d: DeliveryView; open: boolean; onToggle: () => void; onRedeliver: () => void; busy: boolean }) {
  return (
    <>
      <tr className="border-t border-slate-100 align-top" data-testid={`delivery-row-${d.seq}`}>
        <td className="p-2 text-slate-500">{d.seq}</td>
        <td className="p-2">
          {d.event}
          {d.redeliveryOf && <div className="text-xs text-slate-500">redelivery</div>}
        </td>
        <td className="p-2 text-slate-500">
          <Time iso={d.createdAt} seconds />
        </td>
        <td className="p-2">
          <span className={statusClass[d.status]} data-testid={`delivery-status-${d.seq}`}>
            {d.status}
          </span>
          <div className="text-xs text-slate-500">
            {d.attempts} attempt{d.attempts === 1 ? "" : "s"}
            {d.status === "pending" && d.nextAttemptAt && d.attempts > 0 && (
              <>
                , next <Time iso={d.nextAttemptAt} seconds />
              </>
            )}
          </div>
        </td>
        <td className="p-2">
          {d.responseStatus ?? "—"}
          {d.lastError && <div className="text-xs text-red-600">{d.lastError}</div>}
        </td>
        <td className="p-2">{d.responseMs !== null ? `${d.responseMs} ms` : "—"}</td>
        <td className="flex justify-end gap-2 p-2">
          <button className="btn" onClick={onToggle} data-testid={`delivery-details-${d.seq}`}>
            {open ? "Hide" : "Details"}
          </button>
          <button className="btn" disabled={busy} onClick={onRedeliver} data-testid={`delivery-redeliver-${d.seq}`}>
            Redeliver
          </button>
        </td>
      </tr>
      {open && (
        <tr>
          <td colSpan={7} className="bg-slate-50 p-3 text-xs">
            <p className="mb-1 font-semibold">Attempts</p>
            {d.attemptLog.length === 0 && <p className="text-slate-500">none yet</p>}
            <ul className="mb-3 space-y-1">
              {d.attemptLog.map((a, i) => (
                <li key={i}>
                  <Time iso={a.at} seconds /> — {a.responseStatus ?? "no answer"} in {a.durationMs} ms{a.error ? `: ${a.error}` : ""}
                  {a.responseBody && <pre className="mt-1 max-h-24 overflow-auto whitespace-pre-wrap break-all text-slate-600">{a.responseBody}</pre>}
                </li>
              ))}
            </ul>
            <p className="mb-1 font-semibold">
              Body (event {d.eventId}, delivery {d.id})
            </p>
            <pre className="max-h-80 overflow-auto whitespace-pre-wrap break-all">{prettyJson(d.body)}</pre>
          </td>
        </tr>
      )}
    </>
  );
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
