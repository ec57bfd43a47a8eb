"use client";
// A host's pinned SSH key on the cluster page, and (admins) re-pinning it after a reinstall: a probe
// reads the key the host offers now, both fingerprints are shown, and the admin pins the new one only
// after comparing it out of band. Who confirmed it is recorded, and the audit log has both.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { HostKeyProbe } from "@/lib/engine/schemas";
import { queryKeys } from "@/lib/clusters/schemas";
import { api } from "../api-client";
import { useCan } from "../current-user";

export function HostKey({ clusterId, host, pinned }: { clusterId: string; host: string; pinned: string | null }) {
  const canRepin = useCan("host:repin");
  const queryClient = useQueryClient();
  const [shown, setShown] = useState<HostKeyProbe | null>(null);
  const base = `/api/clusters/${clusterId}/hosts/${encodeURIComponent(host)}/host-key`;
  const probe = useMutation({ mutationFn: () => api<HostKeyProbe>(`${base}/probe`, { method: "POST" }), onSuccess: setShown });
  const repin = useMutation({
    mutationFn: (p: HostKeyProbe) => api(base, { method: "PUT", body: { fingerprint: p.offered, previous: p.pinned, confirm: true } }),
    onSuccess: () => {
      setShown(null);
      void queryClient.invalidateQueries({ queryKey: queryKeys.cluster(clusterId) });
    },
  });
  return (
    <div className="space-y-1">
      <div>{pinned ?? <span className="text-slate-600">not yet seen (pinned on first contact)</span>}</div>
      {canRepin && !shown && (
        <button className="btn text-xs" data-testid={`repin-${host}`} disabled={probe.isPending} onClick={() => probe.mutate()} title="Read the key the host offers now and compare it with the pinned one">
          {probe.isPending ? "Reading the host's key…" : "Re-pin host key…"}
        </button>
      )}
      {shown && (
        <div className="space-y-1 rounded bg-amber-50 p-2 text-xs text-amber-900" data-testid={`repin-confirm-${host}`}>
          <div>pinned: {shown.pinned ?? "(none)"}</div>
          <div>offered now: {shown.offered}</div>
          {shown.matches ? (
            <div>
              The host offers the pinned key; nothing to change.{" "}
              <button className="underline" onClick={() => setShown(null)}>
                Close
              </button>
            </div>
          ) : (
            <div className="flex flex-wrap items-center gap-2">
              <span>Compare it on the host (ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub). Pin it?</span>
              <button className="btn text-xs" data-testid={`repin-pin-${host}`} disabled={repin.isPending} onClick={() => repin.mutate(shown)}>
                Pin {shown.offered.slice(0, 19)}…
              </button>
              <button className="underline" onClick={() => setShown(null)}>
                Keep the old pin
              </button>
            </div>
          )}
        </div>
      )}
      {probe.isError && <div className="text-xs text-red-600">{probe.error.message}</div>}
      {repin.isError && <div className="text-xs text-red-600">{repin.error.message}</div>}
    </div>
  );
}
