"use client";
// Pause and resume of a running upgrade: it stops before its next batch of nodes (nodes in flight
// finish) and goes on from there when resumed. Aborting is the run's Cancel.
import { useMutation } from "@tanstack/react-query";
import { api } from "../api-client";
import { useCan } from "../current-user";

export function UpgradeControls({ runId, type, status }: { runId: string; type: string; status: string }) {
  const canStart = useCan("run:start");
  const pause = useMutation({ mutationFn: () => api<{ already: boolean }>(`/api/runs/${runId}/pause`, { method: "POST" }) });
  const resume = useMutation({ mutationFn: () => api<{ wasPaused: boolean }>(`/api/runs/${runId}/resume`, { method: "POST" }) });
  if (type !== "upgrade" || status !== "running" || !canStart) return null;
  return (
    <span className="flex items-center gap-2">
      <button className="btn" data-testid="run-pause" disabled={pause.isPending} onClick={() => pause.mutate()} title="Nodes in flight finish; the next batch waits for Resume">
        Pause
      </button>
      <button className="btn" data-testid="run-resume" disabled={resume.isPending} onClick={() => resume.mutate()}>
        Resume
      </button>
      {pause.data && <span className="text-xs text-slate-600">{pause.data.already ? "already paused" : "pauses before its next batch"}</span>}
      {resume.data && <span className="text-xs text-slate-600">{resume.data.wasPaused ? "resumed" : "was not paused"}</span>}
      {(pause.isError || resume.isError) && <span className="text-xs text-red-600">{(pause.error ?? resume.error)?.message}</span>}
    </span>
  );
}
