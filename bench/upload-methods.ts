// npm run bench:upload-methods -- --hosts 20 [--rounds 3] [--lab bench]
// Measures the two upload methods the executor could use, with identical guarantees (temp names,
// SHA-256 verified on the host, fsync, atomic rename): one tar stream per host vs SFTP. Each round
// starts from an empty target directory so every file is written. Prints medians. Runs as root.
import { labUp } from "../lab/lab";
import { readState } from "../lab/state";
import { Executor } from "../lib/ssh/executor";
import type { HostTarget } from "../lib/ssh/types";
import { assetSet, targets } from "./lab-targets";

const argv = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] ? (argv[i + 1] as string) : dflt;
};
const HOSTS = Number(opt("hosts", "20"));
const ROUNDS = Number(opt("rounds", "3"));
const LAB = opt("lab", "bench");
const DIR = "/etc/kubernetes/bench-upload";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function main(): Promise<number> {
  if (process.getuid?.() !== 0) throw new Error("run as root (it may start a lab)");
  const state = readState(LAB) ?? (await labUp({ name: LAB, hosts: HOSTS, log: console.log }));
  if (state.hosts.length < HOSTS) throw new Error(`lab ${LAB} has ${state.hosts.length} hosts, asked for ${HOSTS}`);
  const { assets, source } = await assetSet();
  const files = assets.map((a) => ({ path: `${DIR}/${a.path}`, content: a.content, mode: a.mode }));
  const hosts = targets(state, HOSTS);
  console.log(`${files.length} files (${source}) to ${HOSTS} hosts, ${ROUNDS} rounds per method`);

  const ex = new Executor();
  // Warm the connections so both methods are measured on open connections.
  await Promise.all(hosts.map((h) => ex.run(h, ["true"])));
  const clean = () => Promise.all(hosts.map((h) => ex.run(h, ["rm", "-rf", "--", DIR])));
  const methods: Record<string, (h: HostTarget) => Promise<unknown>> = {
    tar: (h) => ex.upload(h, files),
    sftp: (h) => ex.uploadViaSftp(h, files),
  };
  const results: Record<string, { all: number; one: number }> = {};
  for (const [name, fn] of Object.entries(methods)) {
    const all: number[] = [];
    const one: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      await clean();
      let t0 = performance.now();
      await Promise.all(hosts.map(fn));
      all.push(performance.now() - t0);
      await clean();
      t0 = performance.now();
      await fn(hosts[0] as HostTarget);
      one.push(performance.now() - t0);
    }
    results[name] = { all: median(all), one: median(one) };
    console.log(`${name.padEnd(5)} ${HOSTS} hosts: ${median(all).toFixed(0)} ms (rounds ${all.map((x) => x.toFixed(0)).join(", ")}); one host: ${median(one).toFixed(0)} ms`);
  }
  console.log(`RESULT ${JSON.stringify({ hosts: HOSTS, files: files.length, ...results })}`);
  await ex.close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`bench:upload-methods: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
