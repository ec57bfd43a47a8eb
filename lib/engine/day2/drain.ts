// Draining a node, as `kubectl drain --ignore-daemonsets --delete-emptydir-data` decides it: which pods
// are evicted (through the Eviction API, so PodDisruptionBudgets hold), which stay, and a report of what
// blocked when the drain runs out of time. Pure functions over API objects.

export type DrainPod = {
  metadata?: { name?: string; namespace?: string; uid?: string; deletionTimestamp?: string; ownerReferences?: { kind: string; name?: string; controller?: boolean }[]; annotations?: Record<string, string> };
  spec?: { nodeName?: string };
  status?: { phase?: string };
};

export type DrainChoice = { evict: DrainPod[]; stay: { pod: string; why: string }[] };

export const podName = (p: DrainPod) => `${p.metadata?.namespace ?? "default"}/${p.metadata?.name ?? "?"}`;

/** What a drain of `node` evicts: every pod on it but DaemonSet pods (they belong there), static pods' mirrors, and finished or leaving pods. */
export function chooseEvictions(pods: readonly DrainPod[], node: string): DrainChoice {
  const evict: DrainPod[] = [];
  const stay: { pod: string; why: string }[] = [];
  for (const p of pods) {
    if (p.spec?.nodeName !== node) continue;
    const owner = p.metadata?.ownerReferences?.find((o) => o.controller !== false) ?? p.metadata?.ownerReferences?.[0];
    if (p.metadata?.annotations?.["kubernetes.io/config.mirror"] !== undefined || owner?.kind === "Node") stay.push({ pod: podName(p), why: "a static pod (its kubelet runs it from a file)" });
    else if (owner?.kind === "DaemonSet") stay.push({ pod: podName(p), why: "a DaemonSet's pod" });
    else if (p.metadata?.deletionTimestamp) stay.push({ pod: podName(p), why: "already terminating" });
    else if (p.status?.phase === "Succeeded" || p.status?.phase === "Failed") stay.push({ pod: podName(p), why: `finished (${p.status.phase})` });
    else evict.push(p);
  }
  return { evict, stay };
}

/** Pods that no controller recreates elsewhere once evicted (kubectl drain refuses them without --force; Bootdeck evicts and says so). */
export const unmanaged = (pods: readonly DrainPod[]) => pods.filter((p) => !p.metadata?.ownerReferences?.length).map(podName);

/** Why an eviction was refused, from the API's answer (429 names the disruption budget in its causes). */
export function evictionRefusal(status: number, body: string): string {
  try {
    const s = JSON.parse(body) as { message?: string; details?: { causes?: { reason?: string; message?: string }[] } };
    const causes = (s.details?.causes ?? []).map((c) => c.message).filter(Boolean);
    return `${s.message ?? `HTTP ${status}`}${causes.length ? ` (${causes.join("; ")})` : ""}`;
  } catch {
    return `HTTP ${status} ${body.slice(0, 200)}`;
  }
}
