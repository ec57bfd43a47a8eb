import { RunView } from "@/components/runs/run-view";

type Search = { host?: string | string[]; phase?: string | string[] };
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

// ?host=worker-2&phase=preflight opens that cell first (links from a host's page); ?host=cluster for cluster-wide steps.
export default async function RunPage({ params, searchParams }: { params: Promise<{ id: string; runId: string }>; searchParams: Promise<Search> }) {
  const { runId } = await params;
  const q = await searchParams;
  const host = one(q.host);
  const phase = one(q.phase);
  return <RunView runId={runId} initialCell={host && phase ? { row: host, phase } : undefined} />;
}
