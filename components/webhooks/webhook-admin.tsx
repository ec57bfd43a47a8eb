"use client";
// The webhooks page: every endpoint with its last delivery, a form to add one, and per endpoint
// enable/disable, a test delivery, a new secret, and delete. The secret is written, never read back.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { eventLabels, notificationEvents, webhookQueryKeys, type NotificationEvent, type WebhookFormat, type WebhookView } from "@/lib/notify/schemas";
import { api, ApiError } from "../api-client";
import { Time } from "../time";

export function WebhookAdmin() {
  const queryClient = useQueryClient();
  const q = useQuery({ queryKey: webhookQueryKeys.list(), queryFn: () => api<{ webhooks: WebhookView[] }>("/api/webhooks"), refetchInterval: 5_000 });
  const [note, setNote] = useState<string>();
  const [error, setError] = useState<string>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: webhookQueryKeys.list() });
  const done = (message?: string) => {
    setError(undefined);
    setNote(message);
    return refresh();
  };
  const update = useMutation({
    mutationFn: (v: { id: string; enabled?: boolean; secret?: string }) => api(`/api/webhooks/${v.id}`, { method: "PATCH", body: { enabled: v.enabled, secret: v.secret } }),
    onSuccess: (_r, v) => done(v.secret ? "The new secret is in use from the next delivery on." : undefined),
    onError: (e) => setError(e.message),
  });
  const ping = useMutation({
    mutationFn: (w: WebhookView) => api(`/api/webhooks/${w.id}/ping`, { method: "POST", body: {} }),
    onSuccess: () => done("A test delivery is queued: see its outcome in the delivery log."),
    onError: (e) => setError(e.message),
  });
  const remove = useMutation({
    mutationFn: (w: WebhookView) => api(`/api/webhooks/${w.id}`, { method: "DELETE" }),
    onSuccess: () => done(),
    onError: (e) => setError(e.message),
  });

  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">Webhooks</h1>
      <p className="text-sm text-slate-600">
        Bootdeck POSTs each chosen event to these URLs, signed with the endpoint&apos;s secret in <code>X-Bootdeck-Signature-256</code> (as GitHub signs its webhooks), in Bootdeck&apos;s JSON
        schema or as a Slack message. Deliveries to one endpoint go out one at a time, in order, and are retried for up to about 85 minutes. The body&apos;s schema and how to check a
        signature: docs/notifications.md.
      </p>
      {note && (
        <p className="text-sm text-slate-700" role="status" data-testid="webhook-note">
          {note}
        </p>
      )}
      {error && (
        <p className="text-sm text-red-600" role="alert" data-testid="webhook-error">
          {error}
        </p>
      )}
      <CreateWebhook onCreated={() => done("Endpoint added.")} />
      {q.isPending && <p className="text-sm text-slate-500">Loading webhooks…</p>}
      {q.isError && <p className="text-sm text-red-600">Could not load webhooks: {q.error.message}</p>}
      {q.data && q.data.webhooks.length === 0 && <p className="text-sm text-slate-500">No endpoints yet.</p>}
      {q.data && q.data.webhooks.length > 0 && (
        <table className="card min-w-full text-sm" data-testid="webhook-table">
          <thead className="text-left text-xs uppercase text-slate-500">
            <tr>
              <th className="p-2">Endpoint</th>
              <th className="p-2">Events</th>
              <th className="p-2">Last delivery</th>
              <th className="p-2">State</th>
              <th className="p-2" />
            </tr>
          </thead>
          <tbody>
            {q.data.webhooks.map((w) => (
              <tr key={w.id} className="border-t border-slate-100 align-top" data-testid={`webhook-row-${w.name}`}>
                <td className="p-2">
                  <Link href={`/webhooks/${w.id}`} className="font-medium text-indigo-700 hover:underline" data-testid={`webhook-link-${w.name}`}>
                    {w.name}
                  </Link>
                  <div className="break-all font-mono text-xs text-slate-500">{w.url}</div>
                  <div className="text-xs text-slate-500">{w.format === "slack" ? "Slack message" : "Bootdeck JSON"}</div>
                </td>
                <td className="p-2 text-xs">
                  {w.events.map((e) => (
                    <div key={e}>
                      {eventLabels[e]}
                      {e === "certificate.expiring" ? ` (within ${w.certificateDays} days)` : ""}
                    </div>
                  ))}
                </td>
                <td className="p-2 text-xs">
                  {w.last ? (
                    <>
                      <span className={w.last.status === "failed" ? "text-red-600" : w.last.status === "delivered" ? "text-green-700" : "text-amber-700"}>{w.last.status}</span> {w.last.event}
                      {w.last.responseStatus !== null ? ` (${w.last.responseStatus})` : ""} <Time iso={w.last.at} />
                    </>
                  ) : (
                    "none yet"
                  )}
                  {w.pending > 0 && <div className="text-amber-700">{w.pending} waiting</div>}
                </td>
                <td className="p-2">{w.enabled ? "enabled" : <span className="text-slate-500">disabled</span>}</td>
                <td className="flex flex-wrap justify-end gap-2 p-2">
                  <button className="btn" disabled={ping.isPending} onClick={() => ping.mutate(w)} data-testid={`webhook-ping-${w.name}`}>
                    Send a test delivery
                  </button>
                  <button className="btn" disabled={update.isPending} onClick={() => update.mutate({ id: w.id, enabled: !w.enabled })} data-testid={`webhook-toggle-${w.name}`}>
                    {w.enabled ? "Disable" : "Enable"}
                  </button>
                  <button
                    className="btn"
                    disabled={update.isPending}
                    onClick={() => {
                      const secret = window.prompt(`A new signing secret for ${w.name} (at least 16 characters, e.g. from openssl rand -hex 32). Update the receiver too.`);
                      if (secret) update.mutate({ id: w.id, secret });
                    }}
                    data-testid={`webhook-secret-${w.name}`}
                  >
                    New secret…
                  </button>
                  <button
                    className="btn"
                    disabled={remove.isPending}
                    onClick={() => {
                      if (window.confirm(`Delete the endpoint ${w.name} and its delivery log? Deliveries still waiting are dropped.`)) remove.mutate(w);
                    }}
                    data-testid={`webhook-delete-${w.name}`}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function CreateWebhook({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [format, setFormat] = useState<WebhookFormat>("json");
  const [secret, setSecret] = useState("");
  const [events, setEvents] = useState<NotificationEvent[]>(["run.failed", "run.needs-decision", "backup.failing", "certificate.expiring", "host.unreachable"]);
  const [certificateDays, setCertificateDays] = useState(14);
  const create = useMutation({
    mutationFn: () => api("/api/webhooks", { method: "POST", body: { name, url, format, secret, events, certificateDays } }),
    onSuccess: () => {
      setName("");
      setUrl("");
      setSecret("");
      onCreated();
    },
  });
  const problems = create.error instanceof ApiError ? create.error.errors : [];
  return (
    <form
      className="card space-y-3"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
      data-testid="webhook-create"
    >
      <div className="flex flex-wrap items-end gap-3">
        <div>
          <label className="label" htmlFor="wh-name">Name</label>
          <input id="wh-name" className="input" value={name} onChange={(e) => setName(e.target.value)} required maxLength={64} data-testid="webhook-name" />
        </div>
        <div className="min-w-80 flex-1">
          <label className="label" htmlFor="wh-url">URL (http or https)</label>
          <input id="wh-url" className="input w-full" type="url" value={url} onChange={(e) => setUrl(e.target.value)} required placeholder="https://hooks.example/bootdeck" data-testid="webhook-url" />
        </div>
        <div>
          <label className="label" htmlFor="wh-format">Format</label>
          <select id="wh-format" className="input" value={format} onChange={(e) => setFormat(e.target.value as WebhookFormat)} data-testid="webhook-format">
            <option value="json">Bootdeck JSON</option>
            <option value="slack">Slack message</option>
          </select>
        </div>
        <div>
          <label className="label" htmlFor="wh-secret">Signing secret</label>
          <input id="wh-secret" className="input" type="password" autoComplete="new-password" value={secret} onChange={(e) => setSecret(e.target.value)} required minLength={16} placeholder="openssl rand -hex 32" data-testid="webhook-secret" />
        </div>
      </div>
      <fieldset className="flex flex-wrap gap-4 text-sm">
        <legend className="label">Events</legend>
        {notificationEvents.map((e) => (
          <label key={e} className="flex items-center gap-1">
            <input type="checkbox" checked={events.includes(e)} onChange={(x) => setEvents(x.target.checked ? [...events, e] : events.filter((y) => y !== e))} data-testid={`webhook-event-${e}`} />
            {eventLabels[e]}
          </label>
        ))}
        {events.includes("certificate.expiring") && (
          <label className="flex items-center gap-1">
            within
            <input className="input w-20 py-1" type="number" min={1} max={365} value={certificateDays} onChange={(e) => setCertificateDays(Number(e.target.value))} data-testid="webhook-certificate-days" />
            days
          </label>
        )}
      </fieldset>
      <button className="btn-primary" disabled={create.isPending || !name || !url || !secret || events.length === 0} data-testid="webhook-submit">
        {create.isPending ? "Adding…" : "Add endpoint"}
      </button>
      {create.isError && (
        <div className="text-sm text-red-600" role="alert">
          {problems.length ? problems.map((p) => <p key={p.path}>{`${p.path}: ${p.message}`}</p>) : create.error.message}
        </div>
      )}
    </form>
  );
}
