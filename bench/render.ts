// npm run bench:render — median wall time and peak RSS of a full render for a 3-master, 5-worker
// cluster, ECDSA-P256 (the default) and RSA-2048 (what bootkube renders). Each algorithm runs in its
// own child process so its peak RSS is its own. Where the time goes: the same keys generated alone (lib/assets/pki.ts, all at once, as
// the render does) and the render with those keys handed in (certificates, kubeconfigs, manifests:
// Bootdeck's own code). Usage: npm run bench:render [-- --runs N]
import { execFileSync } from "node:child_process";
import os from "node:os";
import { validateClusterDefinition, type EncryptionAlgorithm } from "../lib/cluster/definition";
import { deriveCluster } from "../lib/cluster/derive";
import { exampleDefinition } from "../lib/cluster/example";
import { capabilitiesFor } from "../lib/assets/capabilities";
import { certificatePlan, keyNames } from "../lib/assets/certificates";
import { startKeyGeneration } from "../lib/assets/pki";
import { renderAssets } from "../lib/assets/render";

type Result = {
  algorithm: EncryptionAlgorithm;
  runs: number;
  medianMs: number;
  medianCpuMs: number;
  minMs: number;
  maxMs: number;
  peakRssMiB: number;
  keys: number;
  files: number;
  /** The same keys, generated alone: wall and CPU (medians). */
  keygenMs: number;
  keygenCpuMs: number;
  /** The render with its keys handed in: everything but key generation (medians). */
  withKeysMs: number;
  withKeysCpuMs: number;
};

/** Wall and CPU (all threads) milliseconds of `f`. */
async function timed<T>(f: () => Promise<T>): Promise<{ value: T; ms: number; cpuMs: number }> {
  const t = process.hrtime.bigint();
  const c = process.cpuUsage();
  const value = await f();
  const used = process.cpuUsage(c);
  return { value, ms: Number(process.hrtime.bigint() - t) / 1e6, cpuMs: (used.user + used.system) / 1000 };
}

const input = exampleDefinition({ name: "bench", hosts: 8 }); // hosts 1–3 are masters, 4–8 workers

function medianOf(values: number[]): number {
  const v = [...values].sort((a, b) => a - b);
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? (v[mid] ?? 0) : ((v[mid - 1] ?? 0) + (v[mid] ?? 0)) / 2;
}

async function child(algorithm: EncryptionAlgorithm, runs: number): Promise<Result> {
  const v = validateClusterDefinition(input);
  if (!v.ok) throw new Error("bench definition is invalid");
  const plan = certificatePlan(v.definition, deriveCluster(v.definition), capabilitiesFor(v.definition.spec.kubernetes.version));
  const keys = keyNames(plan).length;
  await renderAssets(input, { encryptionAlgorithm: algorithm }); // warm-up: module JIT, OpenSSL initialisation
  const times: number[] = [];
  const cpu: number[] = [];
  let files = 0;
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    const c = process.cpuUsage();
    files = (await renderAssets(input, { encryptionAlgorithm: algorithm })).length;
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    const used = process.cpuUsage(c);
    cpu.push((used.user + used.system) / 1000);
  }
  // Where the time goes: the keys alone, then the render with them handed in.
  const keygen: number[] = [];
  const keygenCpu: number[] = [];
  const withKeys: number[] = [];
  const withKeysCpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const names = keyNames(plan);
    const k = await timed(() => Promise.all(startKeyGeneration(names, algorithm).values()));
    keygen.push(k.ms);
    keygenCpu.push(k.cpuMs);
    const injected = Object.fromEntries(names.map((n, j) => [n, k.value[j]!.privateKey]));
    const r = await timed(() => renderAssets(input, { encryptionAlgorithm: algorithm, keys: injected }));
    withKeys.push(r.ms);
    withKeysCpu.push(r.cpuMs);
  }
  times.sort((a, b) => a - b);
  const median = medianOf(times);
  return {
    algorithm,
    runs,
    medianMs: Math.round(median),
    // CPU time of all threads (key generation runs on the libuv pool): what the render costs when the machine is busy.
    medianCpuMs: Math.round(medianOf(cpu)),
    minMs: Math.round(times[0] ?? 0),
    maxMs: Math.round(times[times.length - 1] ?? 0),
    peakRssMiB: Math.round((process.resourceUsage().maxRSS / 1024) * 10) / 10,
    keys,
    files,
    keygenMs: Math.round(medianOf(keygen)),
    keygenCpuMs: Math.round(medianOf(keygenCpu)),
    withKeysMs: Math.round(medianOf(withKeys)),
    withKeysCpuMs: Math.round(medianOf(withKeysCpu)),
  };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const runsAt = args.indexOf("--runs");
  const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 9;
  const childAt = args.indexOf("--child");
  if (childAt >= 0) {
    process.stdout.write(JSON.stringify(await child(args[childAt + 1] as EncryptionAlgorithm, runs)));
    return;
  }
  console.log(
    `render bench: 3 masters + 5 workers, ${runs} runs after one warm-up; ${os.cpus().length} CPUs, Node ${process.version} (OpenSSL ${process.versions.openssl}), UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE ?? "4 (default)"}, load average ${os.loadavg()[0]?.toFixed(2)}`,
  );
  // No target: a figure to report. Keys are OpenSSL's, one per certificate, whatever that costs.
  for (const algorithm of ["ECDSA-P256", "RSA-2048"] as const) {
    const out = execFileSync(process.execPath, [...process.execArgv, process.argv[1] ?? "bench/render.ts", "--child", algorithm, "--runs", String(runs)], { encoding: "utf8" });
    const r = JSON.parse(out) as Result;
    console.log(`${algorithm.padEnd(10)}  median ${r.medianMs} ms (min ${r.minMs}, max ${r.maxMs}; CPU ${r.medianCpuMs} ms)  peak RSS ${r.peakRssMiB} MiB  keys ${r.keys}  files ${r.files}`);
    console.log(
      `             where it goes: the ${r.keys} keys alone ${r.keygenMs} ms (CPU ${r.keygenCpuMs} ms, ${Math.round(r.keygenCpuMs / r.keys)} ms a key); the render with its keys handed in ${r.withKeysMs} ms (CPU ${r.withKeysCpuMs} ms)`,
    );
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
