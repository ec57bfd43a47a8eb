"use client";
// Per-host runs from the cluster and host pages: join a host to the running cluster (a master as a new
// etcd member), or reset a host (stop the kubelet and remove what Bootdeck installed) after saying so
// twice — here, then on the plan.
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { CreateRunBody } from "@/lib/engine/schemas";
import { api } from "../api-client";
import { useCan } from "../current-user";

export function HostActions({ clusterId, host, role, member = false, notYet }: { clusterId: string; host: string; role: "master" | "worker"; /** Already in the cluster: no Join. */ member?: boolean; /** Why no host can join yet (lifecycle.ts dayTwoRefusal). */ notYet?: string }) {
  const router = useRouter();
  const canStart = useCan("run:start");
  const canReset = useCan("host:reset");
  const [confirming, setConfirming] = useState(false);
  const plan = useMutation({
    mutationFn: (body: CreateRunBody) => api<{ id: string }>(`/api/clusters/${clusterId}/runs`, { method: "POST", body }),
    onSuccess: (r) => router.push(`/clusters/${clusterId}/runs/${r.id}`),
  });
  if (!canStart) return null;
  return (
    <div className="flex flex-wrap items-center gap-2">
      <button
        className="btn text-xs"
        data-testid={`join-${host}`}
        disabled={plan.isPending || member || !!notYet}
        onClick={() => plan.mutate({ type: "join", hosts: [host] })}
        title={
          notYet ??
          (member
            ? `${host} is already in the cluster (a bootstrap or join installed its kubelet); reset it first to join it again`
            : role === "master"
              ? "Add it as an etcd member (a learner, promoted once caught up) and run the control plane on it"
              : "Install and start its kubelet; it joins with the bootstrap token")
        }
      >
        Join
      </button>
      {!canReset ? null : confirming ? (
        <span className="flex items-center gap-2 rounded bg-red-50 px-2 py-1 text-xs text-red-800">
          Stop the kubelet and its pods on {host} and remove Bootdeck&apos;s files{role === "master" ? " and etcd's data" : ""}?
          <button className="btn text-xs" data-testid={`reset-confirm-${host}`} disabled={plan.isPending} onClick={() => plan.mutate({ type: "reset", hosts: [host], confirm: true })}>
            Plan the reset
          </button>
          <button className="text-xs underline" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </span>
      ) : (
        <button className="btn text-xs" data-testid={`reset-${host}`} onClick={() => setConfirming(true)}>
          Reset…
        </button>
      )}
      {plan.isError && <span className="text-xs text-red-600">{plan.error.message}</span>}
    </div>
  );
}
