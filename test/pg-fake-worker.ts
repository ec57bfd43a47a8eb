// A `bootdeck worker` on PostgreSQL whose hosts and cluster API are test doubles (test/fake-cluster.ts):
// it works the run queue like the real one (pg-queue.ts) and every command takes STEP_DELAY_MS.
// Started as a child process by the failover test and the queue benchmark:
//   node --conditions=react-server --import tsx test/pg-fake-worker.ts
// with DATABASE_URL, BOOTDECK_MASTER_KEY, WORKER_ID, HOSTS (comma-separated) and optionally
// STEP_DELAY_MS and WORKER_RUNS (runs at once). Prints "ready" once it takes jobs; SIGTERM hands its
// runs over.
import { PgBossRunQueue } from "../lib/engine/pg-queue";
import { FakeClusterApi, RecordingExecutor } from "./fake-cluster";

const env = (name: string) => {
  const v = process.env[name];
  if (!v) throw new Error(`pg-fake-worker: ${name} is not set`);
  return v;
};

async function main() {
  const delayMs = Number(process.env.STEP_DELAY_MS ?? "200");
  const hosts = env("HOSTS").split(",");
  // Healthy hosts (the executor's own answers), each command taking delayMs.
  const executor = new RecordingExecutor();
  const run = executor.run.bind(executor);
  executor.run = async (host, argv, opts) => {
    await new Promise((r) => setTimeout(r, delayMs));
    return run(host, argv, opts);
  };
  const queue = new PgBossRunQueue({
    url: env("DATABASE_URL"),
    workerId: env("WORKER_ID"),
    concurrency: Number(process.env.WORKER_RUNS ?? "16"),
    runner: { executor, api: () => new FakeClusterApi(hosts) },
  });
  await queue.startWorkerLoop();
  console.log("ready");
  const idle = setInterval(() => undefined, 60_000);
  process.once("SIGTERM", () => {
    void queue.stop({ handOver: true }).finally(() => {
      clearInterval(idle);
      process.exit(0);
    });
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
