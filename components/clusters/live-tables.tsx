"use client";
// The cluster's pods and nodes, live: like `kubectl get pods -o wide -A` and `kubectl get nodes -o wide`,
// fed by the cluster's live stream into the react-query cache. Rows change in place; while the API does
// not answer, the last known state stays with a banner saying so.
import { useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { Fragment, memo, useEffect, useMemo, useRef, useState, type ReactNode, type RefObject } from "react";
import { doubtText, knownPods, type ApiState, type LiveMessage, type NodeRow, type PodDoubt, type PodRow } from "@/lib/clusters/live-rows";
import { api } from "../api-client";
import { frameBatch } from "../frame-batch";
import { openReconnectingEventSource } from "../reconnecting-event-source";
import { Time } from "../time";

type Live = { pods: Record<string, PodRow>; nodes: Record<string, NodeRow>; api: ApiState | null };
const empty: Live = { pods: {}, nodes: {}, api: null };
// Not under ["clusters", id]: invalidating a cluster (after a run) must not reset what the stream built.
const liveKey = (clusterId: string) => ["live", clusterId] as const;

export function applyLive(live: Live, m: LiveMessage): Live {
  return applyLiveBatch(live, [m]);
}

/** Several messages at once, copying the pod and node maps once rather than once per message. */
export function applyLiveBatch(live: Live, batch: readonly LiveMessage[]): Live {
  let pods: Record<string, PodRow> | undefined;
  let nodes: Record<string, NodeRow> | undefined;
  let { api } = live;
  for (const m of batch) {
    switch (m.type) {
      case "snapshot":
        pods = Object.fromEntries(m.pods.map((p) => [p.uid, p]));
        nodes = Object.fromEntries(m.nodes.map((n) => [n.name, n]));
        api = m.api;
        break;
      case "api":
        api = m.api;
        break;
      case "pod":
        pods ??= { ...live.pods };
        if (m.op === "upsert") pods[m.row.uid] = m.row;
        else delete pods[m.uid];
        break;
      case "node":
        nodes ??= { ...live.nodes };
        if (m.op === "upsert") nodes[m.row.name] = m.row;
        else delete nodes[m.name];
        break;
    }
  }
  return { pods: pods ?? live.pods, nodes: nodes ?? live.nodes, api };
}

/** What the cluster's live stream has put in the cache (another component on the page holds the stream). */
export function useLiveCache(clusterId: string): Live {
  const queryClient = useQueryClient();
  const key = liveKey(clusterId);
  // The stream is the only source: a refetch keeps what is cached.
  return useQuery({ queryKey: key, queryFn: () => queryClient.getQueryData<Live>(key) ?? empty, initialData: empty, staleTime: Infinity }).data;
}

/**
 * Follows the cluster's live stream into the cache until the returned function is called. Every
 * (re)connection starts with a snapshot that replaces what is cached, so a stream closed by an HTTP
 * error is simply opened again (reconnecting-event-source.ts).
 */
export function followClusterLive({ clusterId, queryClient, EventSourceImpl }: { clusterId: string; queryClient: QueryClient; EventSourceImpl?: typeof EventSource }): () => void {
  const key = liveKey(clusterId);
  // A thousand pods changing at once arrive as a thousand messages: applied together, once per frame.
  const batch = frameBatch<LiveMessage>((messages) => queryClient.setQueryData<Live>(key, (old) => applyLiveBatch(old ?? empty, messages)));
  const onMessage = (e: MessageEvent<string>) => batch.push(JSON.parse(e.data) as LiveMessage);
  const stream = openReconnectingEventSource({
    url: () => `/api/clusters/${clusterId}/live`,
    listeners: Object.fromEntries(["snapshot", "api", "pod", "node"].map((type) => [type, onMessage])),
    // Why it was closed, a plain request finds out: an expired session answers 401, which signs out.
    onClosedByServer: () => void api(`/api/clusters/${clusterId}`).catch(() => undefined),
    EventSourceImpl,
  });
  return () => {
    batch.cancel();
    stream.close();
  };
}

function useClusterLive(clusterId: string): Live {
  const queryClient = useQueryClient();
  const live = useLiveCache(clusterId);
  useEffect(() => followClusterLive({ clusterId, queryClient }), [clusterId, queryClient]);
  return live;
}

export function age(iso: string | null, now: number): string {
  if (!iso) return "";
  const s = Math.max(0, Math.floor((now - Date.parse(iso)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

function useNow(ms = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

function ApiBanner({ api, now, hasRows }: { api: ApiState | null; now: number; hasRows: boolean }) {
  if (!api || api.state === "connecting") return <p className="text-sm text-slate-600" data-testid="live-state" data-state="connecting">Connecting to the cluster&apos;s API through a master…</p>;
  if (api.state === "connected")
    return (
      <p className="text-sm text-green-700" data-testid="live-state" data-state="connected">
        ● live — watching the API through the SSH tunnel
      </p>
    );
  if (api.state === "not-bootstrapped")
    return (
      <p className="text-sm text-slate-600" data-testid="live-state" data-state="not-bootstrapped">
        {api.message ?? "No API yet: this cluster has not been bootstrapped."}
      </p>
    );
  // Unreachable: only a pivot under way explains a gap; otherwise say what is known and since when.
  return (
    <p className="rounded bg-amber-50 px-3 py-2 text-sm text-amber-900" data-testid="live-state" data-state="unreachable" data-during-pivot={api.duringPivot ? "true" : "false"}>
      The API is not answering (for {age(api.since, now)}){api.message ? `: ${api.message}` : ""}.{" "}
      {hasRows ? (
        <>
          Showing the last known state, as of <Time iso={api.since} />.
        </>
      ) : (
        "Nothing is known about pods and nodes yet."
      )}
      {api.duringPivot ? " The pivot is under way: a gap of a few seconds is expected while the self-hosted API server takes over." : ""}
    </p>
  );
}

type PodSort = "namespace" | "name" | "status" | "restarts" | "age" | "node";
const podSorters: Record<PodSort, (a: PodRow, b: PodRow) => number> = {
  namespace: (a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name),
  name: (a, b) => a.name.localeCompare(b.name),
  status: (a, b) => a.status.localeCompare(b.status) || a.name.localeCompare(b.name),
  restarts: (a, b) => b.restarts - a.restarts || a.name.localeCompare(b.name),
  age: (a, b) => (b.createdAt ?? "").localeCompare(a.createdAt ?? ""),
  node: (a, b) => (a.node ?? "").localeCompare(b.node ?? "") || a.name.localeCompare(b.name),
};

export function filterPods(pods: PodRow[], filter: string, sort: PodSort): PodRow[] {
  const f = filter.trim().toLowerCase();
  return pods.filter((p) => !f || `${p.namespace} ${p.name} ${p.status} ${p.node ?? ""} ${p.ip ?? ""}`.toLowerCase().includes(f)).sort(podSorters[sort]);
}

const th = "px-2 py-1 text-left font-medium text-slate-600";
const td = "px-2 py-1 whitespace-nowrap";
const ROW_HEIGHT = 29;

/**
 * Rows of a table in a scroll box, only those in view (plus some) in the DOM: a 550-node cluster has
 * over a thousand pods. Spacer rows above and below keep the scroll height and the columns aligned.
 */
function VirtualBody<T>({ items, scrollRef, columns, rowKey, render }: { items: T[]; scrollRef: RefObject<HTMLDivElement | null>; columns: number; rowKey: (t: T) => string; render: (t: T) => ReactNode }) {
  const virtualizer = useVirtualizer({ count: items.length, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_HEIGHT, overscan: 10, getItemKey: (i) => (items[i] ? rowKey(items[i]) : i), useFlushSync: false });
  const rows = virtualizer.getVirtualItems();
  const top = rows[0]?.start ?? 0;
  const bottom = virtualizer.getTotalSize() - (rows.at(-1)?.end ?? 0);
  return (
    <tbody>
      {top > 0 && (
        <tr aria-hidden style={{ height: top }}>
          <td colSpan={columns} />
        </tr>
      )}
      {rows.map((r) => (items[r.index] === undefined ? null : <Fragment key={r.key}>{render(items[r.index] as T)}</Fragment>))}
      {bottom > 0 && (
        <tr aria-hidden style={{ height: bottom }}>
          <td colSpan={columns} />
        </tr>
      )}
    </tbody>
  );
}

// Memoized on the row and its age text: the clock ticks every second, but a row re-renders only when
// what it shows changes.
const NodeLine = memo(function NodeLine({ n, age }: { n: NodeRow; age: string }) {
  return (
    <tr className="border-b last:border-0" style={{ height: ROW_HEIGHT }} data-testid={`node-${n.name}`}>
      <td className={`${td} font-mono`}>{n.name}</td>
      <td className={`${td} ${n.ready ? "text-green-700" : "text-red-700"}`}>{n.status}</td>
      <td className={td}>{n.roles.join(",") || "<none>"}</td>
      <td className={td}>{age}</td>
      <td className={td}>{n.version}</td>
      <td className={`${td} font-mono`}>{n.addresses.join(", ")}</td>
    </tr>
  );
});

const PodLine = memo(function PodLine({ p, age, doubt }: { p: PodRow; age: string; doubt: PodDoubt | null }) {
  return (
    <tr className="border-b last:border-0" style={{ height: ROW_HEIGHT }} data-testid="pod-row" data-pod={`${p.namespace}/${p.name}`} data-doubt={doubt?.why ?? ""}>
      <td className={td}>{p.namespace}</td>
      <td className={`${td} font-mono`}>{p.name}</td>
      <td className={td}>
        {p.ready}/{p.containers}
      </td>
      {doubt ? (
        <td className={`${td} text-slate-600`} title={`Listed as ${p.status}, but ${doubtText(doubt)}`}>
          Unknown <span className="text-xs">({doubt.why === "gone" ? "node gone" : "node not Ready"})</span>
        </td>
      ) : (
        <td className={`${td} ${p.status === "Running" && p.ready === p.containers ? "text-green-700" : p.status === "Running" ? "text-amber-700" : "text-red-700"}`}>{p.status}</td>
      )}
      <td className={td}>{p.restarts}</td>
      <td className={td}>{age}</td>
      <td className={`${td} font-mono`}>{p.ip}</td>
      <td className={`${td} font-mono`}>{p.node}</td>
    </tr>
  );
});

export function LiveTables({ clusterId }: { clusterId: string }) {
  const live = useClusterLive(clusterId);
  const now = useNow();
  const [filter, setFilter] = useState("");
  const [sort, setSort] = useState<PodSort>("namespace");
  const pods = useMemo(() => filterPods(Object.values(live.pods), filter, sort), [live.pods, filter, sort]);
  const nodes = useMemo(() => Object.values(live.nodes).sort((a, b) => a.name.localeCompare(b.name)), [live.nodes]);
  // Only pods on Ready nodes count: a reset worker's pods stay listed with their last status.
  const known = useMemo(() => knownPods(Object.values(live.pods), live.nodes), [live.pods, live.nodes]);
  const doubts = useMemo(() => new Map(known.rows.filter((r) => r.doubt).map((r) => [r.pod.uid, r.doubt])), [known]);
  const { total, ready } = known;
  const nodesScroll = useRef<HTMLDivElement>(null);
  const podsScroll = useRef<HTMLDivElement>(null);
  const sortHeader = (key: PodSort, label: string) => (
    <th className={th}>
      <button type="button" onClick={() => setSort(key)} className={sort === key ? "underline" : ""}>
        {label}
      </button>
    </th>
  );
  return (
    <section className="space-y-3" aria-label="Pods and nodes">
      <ApiBanner api={live.api} now={now} hasRows={total > 0 || nodes.length > 0} />
      <div>
        <h3 className="mb-1 font-semibold">
          Nodes{" "}
          <span className="font-normal text-slate-500" data-testid="nodes-summary">
            ({nodes.filter((n) => n.ready).length} of {nodes.length} Ready)
          </span>
        </h3>
        <div ref={nodesScroll} className="max-h-[20rem] overflow-auto">
          <table className="w-full text-sm" data-testid="nodes-table">
            <thead className="sticky top-0 bg-white">
              <tr className="border-b">
                {["Name", "Status", "Roles", "Age", "Version", "Addresses"].map((h) => (
                  <th key={h} className={th}>
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <VirtualBody items={nodes} scrollRef={nodesScroll} columns={6} rowKey={(n) => n.name} render={(n) => <NodeLine n={n} age={age(n.createdAt, now)} />} />
          </table>
        </div>
      </div>
      <div>
        <div className="mb-1 flex items-center gap-3">
          <h3 className="font-semibold">
            Pods <span className="font-normal text-slate-600" data-testid="pods-summary">({ready} of {total} Running and Ready)</span>
            {known.doubtful > 0 && (
              <span className="ml-2 text-sm font-normal text-amber-800" data-testid="pods-doubtful">
                {known.doubtful} on nodes that are gone or not Ready: status unknown
              </span>
            )}
          </h3>
          <input aria-label="Filter pods" placeholder="filter: namespace, name, node, status" value={filter} onChange={(e) => setFilter(e.target.value)} className="rounded border px-2 py-0.5 text-sm" />
          {filter && (
            <span className="text-xs text-slate-500" data-testid="pods-shown">
              {pods.length} shown
            </span>
          )}
        </div>
        <div ref={podsScroll} className="max-h-[32rem] overflow-auto">
          <table className="w-full text-sm" data-testid="pods-table">
            <thead className="sticky top-0 bg-white">
              <tr className="border-b">
                {sortHeader("namespace", "Namespace")}
                {sortHeader("name", "Name")}
                <th className={th}>Ready</th>
                {sortHeader("status", "Status")}
                {sortHeader("restarts", "Restarts")}
                {sortHeader("age", "Age")}
                <th className={th}>IP</th>
                {sortHeader("node", "Node")}
              </tr>
            </thead>
            <VirtualBody items={pods} scrollRef={podsScroll} columns={8} rowKey={(p) => p.uid} render={(p) => <PodLine p={p} age={age(p.createdAt, now)} doubt={doubts.get(p.uid) ?? null} />} />
          </table>
        </div>
      </div>
    </section>
  );
}
