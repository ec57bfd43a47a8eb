"use client";
// Day two from the cluster page: select hosts to add to the running cluster (workers and masters) or to
// remove from it, or roll it to another Kubernetes version. Each plans a run; its page shows the plan to
// review and confirm, then the live grid.
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { upgradeRefusal } from "@/lib/engine/day2/skew";
import { DEFAULT_BATCHES } from "@/lib/engine/day2/batches";
import type { CreateRunBody } from "@/lib/engine/schemas";
import { versionProfiles } from "@/lib/cluster/versions";
import { api } from "../api-client";
import { useCan } from "../current-user";
import { NotYet } from "./not-yet";

type Host = { name: string; role: string };

export function Day2Panel({ clusterId, version, hosts, notYet }: { clusterId: string; version: string; hosts: Host[]; /** Why none of this applies yet (lifecycle.ts dayTwoRefusal). */ notYet?: string }) {
  const router = useRouter();
  const canStart = useCan("run:start");
  const canRemove = useCan("host:reset");
  const [selected, setSelected] = useState<string[]>([]);
  const [confirmRemove, setConfirmRemove] = useState(false);
  const [reset, setReset] = useState(true);
  const [drainSeconds, setDrainSeconds] = useState("300");
  const targets = versionProfiles.map((p) => p.defaultVersion).filter((v) => !upgradeRefusal(version, v));
  const [to, setTo] = useState(targets[0] ?? "");
  const [masters, setMasters] = useState<string>(DEFAULT_BATCHES.masters);
  const [workers, setWorkers] = useState<string>(DEFAULT_BATCHES.workers);
  const plan = useMutation({
    mutationFn: (body: CreateRunBody) => api<{ id: string }>(`/api/clusters/${clusterId}/runs`, { method: "POST", body }),
    onSuccess: (r) => router.push(`/clusters/${clusterId}/runs/${r.id}`),
  });
  if (!canStart) return null;
  const toggle = (name: string, on: boolean) => setSelected(on ? [...selected, name] : selected.filter((x) => x !== name));
  const selectedMasters = hosts.filter((h) => h.role === "master" && selected.includes(h.name)).length;
  return (
    <section className="card space-y-3" data-testid="day2-panel">
      <h2 className="font-semibold">Add, remove, upgrade</h2>
      <NotYet reason={notYet} testId="day2-not-yet" />
      <div className="flex flex-wrap gap-3 text-sm">
        {hosts.map((h) => (
          <label key={h.name} className="flex items-center gap-1">
            <input type="checkbox" data-testid={`day2-select-${h.name}`} checked={selected.includes(h.name)} onChange={(e) => toggle(h.name, e.target.checked)} />
            {h.name} <span className="text-xs text-slate-600">({h.role})</span>
          </label>
        ))}
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <button
          className="btn"
          data-testid="day2-add"
          disabled={!selected.length || plan.isPending || !!notYet}
          onClick={() => plan.mutate({ type: "join", hosts: selected })}
          title={notYet ?? "Hosts of the definition that are not in the running cluster yet: workers join with the bootstrap token, masters join etcd one at a time"}
        >
          Add {selected.length || ""} to the cluster{selectedMasters ? ` (${selectedMasters} master${selectedMasters > 1 ? "s" : ""}: etcd grows one member at a time)` : ""}
        </button>
        {canRemove &&
          (confirmRemove ? (
            <span className="flex flex-wrap items-center gap-2 rounded bg-red-50 px-2 py-1 text-xs text-red-800">
              Remove {selected.join(", ")}: etcd member first{selectedMasters ? " (refused if etcd would lose its healthy majority)" : ""}, then drain, delete the Node{reset ? ", reset the host" : ""}, and drop it from the definition?
              <label className="flex items-center gap-1">
                <input type="checkbox" checked={reset} onChange={(e) => setReset(e.target.checked)} data-testid="day2-remove-reset" /> reset the host (uncheck when it is gone)
              </label>
              <label className="flex items-center gap-1">
                drain at most <input className="input w-16 py-0 text-xs" value={drainSeconds} onChange={(e) => setDrainSeconds(e.target.value)} aria-label="Drain timeout in seconds" /> s
              </label>
              <button
                className="btn text-xs"
                data-testid="day2-remove-confirm"
                disabled={!selected.length || plan.isPending}
                onClick={() => plan.mutate({ type: "remove", hosts: selected, confirm: true, reset, drainTimeoutSeconds: Number(drainSeconds) || 300 })}
              >
                Plan the removal
              </button>
              <button className="text-xs underline" onClick={() => setConfirmRemove(false)}>
                Keep them
              </button>
            </span>
          ) : (
            <button className="btn" data-testid="day2-remove" disabled={!selected.length || !!notYet} title={notYet} onClick={() => setConfirmRemove(true)}>
              Remove {selected.length || ""} from the cluster…
            </button>
          ))}
      </div>
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span>Upgrade from {version} to</span>
        {targets.length ? (
          <select className="input w-32" value={to} onChange={(e) => setTo(e.target.value)} aria-label="Target version" data-testid="day2-upgrade-version">
            {targets.map((v) => (
              <option key={v}>{v}</option>
            ))}
          </select>
        ) : (
          <span className="text-slate-600">(no newer version one minor away)</span>
        )}
        <label className="flex items-center gap-1">
          masters <input className="input w-14" value={masters} onChange={(e) => setMasters(e.target.value)} aria-label="Masters per batch" /> at a time,
        </label>
        <label className="flex items-center gap-1">
          workers <input className="input w-14" value={workers} onChange={(e) => setWorkers(e.target.value)} aria-label="Workers per batch (count or %)" /> at a time
        </label>
        <button className="btn" data-testid="day2-upgrade" disabled={!to || plan.isPending || !!notYet} title={notYet} onClick={() => plan.mutate({ type: "upgrade", version: to, batches: { masters, workers } })}>
          Plan the upgrade
        </button>
      </div>
      {plan.isError && <p className="text-sm text-red-600">{plan.error.message}</p>}
    </section>
  );
}
