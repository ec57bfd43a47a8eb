import { RunView } from "@/components/runs/run-view";

export default async function RunPage({ params }: { params: Promise<{ id: string; runId: string }> }) {
  const { runId } = await params;
  return <RunView runId={runId} />;
}
