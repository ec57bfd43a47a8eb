"use client";
// Join or reset several hosts at once from the cluster page: both plan a run (reviewed on its page
// before anything is sent). Masters join too (etcd adds them one at a time). Removing hosts from the
// cluster — etcd member, drain, Node and definition — is the day-2 panel's (day2-panel.tsx).
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { CreateRunBody } from "@/lib/engine/schemas";
import { api } from "../api-client";
import { useCan } from "../current-user";

export function HostSelectionBar({ clusterId, selected, roles, onClear, notYet }: { clusterId: string; selected: string[]; roles: Map<string, string>; onClear: () => void; /** Why no host can join yet (lifecycle.ts dayTwoRefusal). */ notYet?: string }) {
  const router = useRouter();
  const canStart = useCan("run:start");
  const [confirming, setConfirming] = useState(false);
  const plan = useMutation({
    mutationFn: (body: CreateRunBody) => api<{ id: string }>(`/api/clusters/${clusterId}/runs`, { method: "POST", body }),
    onSuccess: (r) => router.push(`/clusters/${clusterId}/runs/${r.id}`),
  });
  if (!canStart || selected.length === 0) return null;
  const masters = selected.filter((h) => roles.get(h) === "master");
  return (
    <div className="flex flex-wrap items-center gap-2 rounded border border-indigo-200 bg-indigo-50 px-3 py-2 text-sm text-slate-800" data-testid="host-selection">
      <span data-testid="host-selection-count">
        {selected.length} host{selected.length === 1 ? "" : "s"} selected
      </span>
      <button
        className="btn"
        data-testid="join-selected"
        disabled={plan.isPending || !!notYet}
        title={notYet ?? `Install and start their kubelets: workers join with the bootstrap token${masters.length ? `; masters (${masters.join(", ")}) join etcd one at a time` : ""}`}
        onClick={() => plan.mutate({ type: "join", hosts: selected })}
      >
        Join {selected.length === 1 ? selected[0] : `${selected.length} hosts`}
      </button>
      {confirming ? (
        <span className="flex flex-wrap items-center gap-2 rounded bg-red-50 px-2 py-1 text-red-800">
          Stop the kubelet and its pods on {selected.join(", ")} and remove Bootdeck&apos;s files{masters.length ? " (and etcd's data on the masters)" : ""}?
          <button className="btn" data-testid="reset-selected-confirm" disabled={plan.isPending} onClick={() => plan.mutate({ type: "reset", hosts: selected, confirm: true })}>
            Plan the reset
          </button>
          <button className="text-xs underline" onClick={() => setConfirming(false)}>
            Keep them
          </button>
        </span>
      ) : (
        <button className="btn" data-testid="reset-selected" onClick={() => setConfirming(true)}>
          Reset {selected.length === 1 ? selected[0] : `${selected.length} hosts`}…
        </button>
      )}
      <button className="text-xs underline" onClick={onClear} data-testid="clear-selection">
        Clear
      </button>
      {plan.isError && <span className="text-red-700">{plan.error.message}</span>}
    </div>
  );
}
