// Marks a saved cluster as bootstrapped (a bootstrap that succeeded an hour ago), for browser tests of
// what acts on a running cluster without a lab. Its hosts are never contacted by this. Run with the
// e2e environment:  node --conditions=react-server --import tsx e2e/seed-bootstrapped.ts NAME
import { disconnectDb, getDb } from "../lib/db/client";
import { createRun } from "../lib/engine/runs";

async function main(name: string | undefined): Promise<void> {
  if (!name) throw new Error("usage: seed-bootstrapped.ts CLUSTER-NAME");
  const { id: clusterId } = await getDb().cluster.findUniqueOrThrow({ where: { name }, select: { id: true } });
  const runId = await createRun({ clusterId, type: "bootstrap", plan: { runType: "bootstrap", phases: [] } });
  await getDb().run.update({ where: { id: runId }, data: { status: "succeeded", startedAt: new Date(Date.now() - 3_600_000), finishedAt: new Date(Date.now() - 3_400_000), summary: JSON.stringify({ message: "bootstrapped" }) } });
  await disconnectDb();
}

void main(process.argv[2]);
