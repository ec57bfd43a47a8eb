// etcd's membership as day-2 runs judge it: what `etcdctl member list`, `endpoint status` and
// `endpoint health` (run in a master's etcd container by ETCD_SCRIPT) report, whether every member is
// healthy, and whether a change keeps a healthy majority. Pure functions (unit-tested without etcd).

export type EtcdMember = { id: string; name: string; peerUrls: string[]; clientUrls: string[]; learner: boolean };
export type EtcdStatus = { endpoint: string; memberId: string; version: string; leader: string; raftIndex: number; raftAppliedIndex: number; learner: boolean; errors: string[] };
export type EtcdView = { members: EtcdMember[]; statuses: EtcdStatus[]; health: Map<string, { healthy: boolean; error?: string }>; errors: string[] };
/** A member as the definition expects it. */
export type ExpectedMember = { name: string; peerUrl: string; clientUrl: string };

/** etcd's member ids are uint64: JSON numbers beyond 2^53, read as strings here before parsing. */
function parseJsonWithIds(text: string): unknown {
  return JSON.parse(text.replace(/"(ID|member_id|cluster_id|leader|revision|raft_term)":\s*(\d+)/g, '"$1":"$2"'));
}

const hex = (dec: string | number | undefined): string => {
  if (dec === undefined || dec === "") return "";
  try {
    return BigInt(String(dec)).toString(16);
  } catch {
    return String(dec);
  }
};

/** Splits ETCD_SCRIPT's `status` output into its sections ("--- members", "--- status", "--- health"). */
export function parseEtcdStatusOutput(stdout: string): EtcdView {
  const sections = new Map<string, string[]>();
  let current = "";
  for (const line of stdout.split("\n")) {
    const m = /^--- (\w+)$/.exec(line);
    if (m) {
      current = m[1] ?? "";
      sections.set(current, []);
    } else if (current) sections.get(current)?.push(line);
  }
  const errors: string[] = [];
  const body = (name: string) => {
    const lines = sections.get(name) ?? [];
    for (const l of lines) if (l.startsWith("error: ")) errors.push(l.slice(7));
    return lines.filter((l) => !l.startsWith("error: ")).join("\n").trim();
  };
  const members: EtcdMember[] = [];
  const list = body("members");
  if (list) {
    const doc = parseJsonWithIds(list) as { members?: { ID?: string; name?: string; peerURLs?: string[]; clientURLs?: string[]; isLearner?: boolean }[] };
    for (const m of doc.members ?? []) members.push({ id: hex(m.ID), name: m.name ?? "", peerUrls: m.peerURLs ?? [], clientUrls: m.clientURLs ?? [], learner: m.isLearner === true });
  }
  const statuses: EtcdStatus[] = [];
  const st = body("status");
  if (st) {
    for (const s of parseJsonWithIds(st) as { Endpoint: string; Status: { header?: { member_id?: string }; version?: string; leader?: string; raftIndex?: number; raftAppliedIndex?: number; isLearner?: boolean; errors?: string[] } }[])
      statuses.push({
        endpoint: s.Endpoint,
        memberId: hex(s.Status.header?.member_id),
        version: s.Status.version ?? "",
        leader: hex(s.Status.leader),
        raftIndex: Number(s.Status.raftIndex ?? 0),
        raftAppliedIndex: Number(s.Status.raftAppliedIndex ?? 0),
        learner: s.Status.isLearner === true,
        errors: s.Status.errors ?? [],
      });
  }
  const health = new Map<string, { healthy: boolean; error?: string }>();
  const h = body("health");
  if (h) for (const e of JSON.parse(h) as { endpoint: string; health: boolean; error?: string }[]) health.set(e.endpoint, { healthy: e.health, ...(e.error ? { error: e.error } : {}) });
  return { members, statuses, health, errors };
}

export type MemberState = { name: string; healthy: boolean; learner: boolean; why?: string };

/** Each member's state: a voting member is healthy when it answers, knows a leader, reports no error and passes etcd's health check. */
export function memberStates(view: EtcdView): MemberState[] {
  return view.members.map((m) => {
    const name = m.name || `(unstarted ${m.peerUrls.join(",")})`;
    const status = view.statuses.find((s) => s.memberId === m.id) ?? view.statuses.find((s) => m.clientUrls.includes(s.endpoint));
    if (!status) {
      const err = view.errors.find((e) => m.clientUrls.some((u) => e.includes(u)));
      return { name, healthy: false, learner: m.learner, why: m.clientUrls.length ? `does not answer${err ? ` (${err})` : ""}` : "has not started" };
    }
    if (status.errors.length) return { name, healthy: false, learner: m.learner, why: `reports ${status.errors.join("; ")}` };
    if (!status.leader || status.leader === "0") return { name, healthy: false, learner: m.learner, why: "knows no leader" };
    if (m.learner) return { name, healthy: true, learner: true };
    const h = m.clientUrls.map((u) => view.health.get(u)).find(Boolean);
    if (h && !h.healthy) return { name, healthy: false, learner: false, why: `fails its health check${h.error ? ` (${h.error})` : ""}` };
    return { name, healthy: true, learner: false };
  });
}

/** The majority a cluster of `voters` voting members needs. */
export const quorumOf = (voters: number) => Math.floor(voters / 2) + 1;

/**
 * Why the cluster is not fit for a membership change, or undefined: every member healthy, no learner
 * left over, and exactly the members the definition expects (a member unknown to it, or one it lists
 * that etcd lacks, means someone changed the membership by hand).
 */
export function membershipProblem(view: EtcdView, expected: readonly ExpectedMember[], opts: { allowLearner?: string } = {}): string | undefined {
  const states = memberStates(view);
  // The learner being added may not have started yet: it is not part of the quorum.
  const beingAdded = (i: number) => view.members[i]?.learner === true && opts.allowLearner !== undefined && view.members[i]!.peerUrls.includes(opts.allowLearner);
  const unhealthy = states.filter((s, i) => !s.healthy && !beingAdded(i));
  if (unhealthy.length) return `etcd is not healthy: ${unhealthy.map((s) => `${s.name} ${s.why}`).join("; ")}`;
  const learners = view.members.filter((m) => m.learner && m.name !== opts.allowLearner && !(opts.allowLearner && m.peerUrls.includes(opts.allowLearner)));
  if (learners.length) return `etcd has a learner that is not being added: ${learners.map((m) => m.name || m.peerUrls.join(",")).join(", ")}; finish or undo that change first`;
  const unknown = view.members.filter((m) => !expected.some((e) => m.peerUrls.includes(e.peerUrl)) && !(opts.allowLearner && m.peerUrls.includes(opts.allowLearner)));
  if (unknown.length) return `etcd has members the cluster definition does not list: ${unknown.map((m) => `${m.name || "(unstarted)"} ${m.peerUrls.join(",")}`).join("; ")}`;
  const missing = expected.filter((e) => !view.members.some((m) => m.peerUrls.includes(e.peerUrl)));
  if (missing.length) return `etcd lacks members the cluster definition lists: ${missing.map((e) => e.name).join(", ")}`;
  return undefined;
}

/**
 * The quorum guard of a removal: why removing `removing` is refused, or undefined. Today's voting
 * members must have a healthy majority (or etcd cannot commit the change), and the members left must
 * still have a healthy majority of themselves; at least one member must remain.
 */
export function removalRefusal(view: EtcdView, removing: readonly string[]): string | undefined {
  const states = memberStates(view).filter((s) => !s.learner);
  const voters = states.length;
  const healthy = states.filter((s) => s.healthy);
  const sick = states.filter((s) => !s.healthy);
  const sickText = sick.length ? ` (${sick.map((s) => `${s.name} ${s.why}`).join("; ")})` : "";
  if (healthy.length < quorumOf(voters)) return `etcd has ${healthy.length} healthy of ${voters} members${sickText}: it needs ${quorumOf(voters)} to commit any change; bring members back first`;
  const left = states.filter((s) => !removing.includes(s.name));
  if (left.length === 0) return "removing every etcd member would destroy the cluster's data; keep at least one master";
  const leftHealthy = left.filter((s) => s.healthy).length;
  if (leftHealthy < quorumOf(left.length))
    return `removing ${removing.join(", ")} leaves ${left.length} member${left.length === 1 ? "" : "s"} of which ${leftHealthy} ${leftHealthy === 1 ? "is" : "are"} healthy${sickText}: a majority of ${left.length} needs ${quorumOf(left.length)}; remove the unhealthy member first or bring it back`;
  return undefined;
}

/** How far a learner is behind the leader (raft entries); undefined when either is not seen. */
export function learnerLag(view: EtcdView, peerUrl: string): number | undefined {
  const m = view.members.find((x) => x.peerUrls.includes(peerUrl));
  if (!m) return undefined;
  const own = view.statuses.find((s) => s.memberId === m.id);
  const leader = view.statuses.find((s) => s.memberId === own?.leader) ?? view.statuses.find((s) => s.memberId && s.memberId === s.leader);
  if (!own || !leader) return undefined;
  return Math.max(0, leader.raftIndex - own.raftAppliedIndex);
}
