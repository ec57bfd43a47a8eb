// npm run bench:fanout -- --hosts 20 [--lab bench] [--keep] [--user root|deploy] [--skip-ansible]
// Pushes the asset set plus five commands to every lab host through the executor (pinned host keys,
// verified atomic uploads), then does the same work with plain ssh2 (bench/ssh2-reference.ts: the
// floor) and with Ansible on the same hosts; prints the wall times, the ratios and the executor's peak
// RSS. Runs as root (it starts a lab). See docs/benchmarks.md.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { labDown, labUp } from "../lab/lab";
import { readState, type LabState } from "../lab/state";
import { Executor } from "../lib/ssh/executor";
import { assetSet, targets, type Asset } from "./lab-targets";
import { ssh2Reference } from "./ssh2-reference";

const argv = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] ? (argv[i + 1] as string) : dflt;
};
const flag = (name: string) => argv.includes(`--${name}`);

const HOSTS = Number(opt("hosts", "20"));
const LAB = opt("lab", "bench");
const USER = opt("user", "root");
const EXEC_DIR = "/etc/kubernetes/bench-exec";
const ANSIBLE_DIR = "/etc/kubernetes/bench-ansible";
const SSH2_DIR = "/etc/kubernetes/bench-ssh2";
const WORK = path.resolve(".lab/bench");

const commands = (dir: string): string[][] => [
  ["uname", "-r"],
  ["cat", "/proc/swaps"],
  ["sh", "-c", "command -v iptables socat ethtool conntrack >/dev/null && echo host packages ok"],
  ["sha256sum", `${dir}/tls/ca.crt`],
  ["ip", "-o", "-4", "addr", "show"],
];

async function ensureLab(): Promise<{ state: LabState; created: boolean }> {
  const s = readState(LAB);
  if (s && s.hosts.length >= HOSTS) return { state: s, created: false };
  if (s) labDown(LAB, console.log);
  const state = await labUp({ name: LAB, hosts: HOSTS, log: (l) => console.log(`[lab] ${l}`) });
  return { state, created: true };
}

async function runExecutor(state: LabState, assets: Asset[]): Promise<{ ms: number; cpuMs: number; peakRss: number; execs: number; written: number }> {
  const ex = new Executor({ concurrency: 64 });
  const hosts = targets(state, HOSTS, USER);
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 10);
  let execs = 0;
  let written = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const results = await ex.forEachHost(hosts, async (h) => {
    const up = await ex.upload(
      h,
      assets.map((a) => ({ path: `${EXEC_DIR}/${a.path}`, content: a.content, mode: a.mode })),
      { step: "assets" },
    );
    execs += up.execs;
    written += up.written;
    for (const [i, c] of commands(EXEC_DIR).entries()) {
      await ex.run(h, c, { step: `cmd-${i + 1}`, quiet: true });
      execs++;
    }
  });
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  await ex.close();
  const failed = results.filter((r) => !r.ok);
  if (failed.length) throw new Error(`executor failed on ${failed.length} of ${hosts.length} hosts: ${failed.map((f) => (f.ok ? "" : f.error.message)).join("; ")}`);
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, peakRss, execs, written };
}

function prepareAnsible(state: LabState, assets: Asset[]): string {
  fs.rmSync(WORK, { recursive: true, force: true });
  fs.mkdirSync(path.join(WORK, "assets"), { recursive: true });
  for (const a of assets) {
    const p = path.join(WORK, "assets", a.path);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, a.content, { mode: a.mode });
  }
  const hosts = state.hosts.slice(0, HOSTS);
  // Same safety as the executor: host keys checked against the lab's real keys.
  fs.writeFileSync(
    path.join(WORK, "known_hosts"),
    hosts.map((h) => `${h.address} ${fs.readFileSync(path.join(h.root, "etc/ssh/ssh_host_ed25519_key.pub"), "utf8").split(" ").slice(0, 2).join(" ")}`).join("\n") + "\n",
  );
  fs.writeFileSync(
    path.join(WORK, "inventory.ini"),
    "[lab]\n" + hosts.map((h) => `${h.name} ansible_host=${h.address}`).join("\n") + "\n",
  );
  fs.writeFileSync(
    path.join(WORK, "ansible.cfg"),
    `[defaults]
inventory = ${WORK}/inventory.ini
forks = ${Math.max(HOSTS, 5)}
host_key_checking = True
gathering = explicit
remote_user = ${USER}
private_key_file = ${state.adminKeyPath}
interpreter_python = /usr/bin/python3
retry_files_enabled = False
stdout_callback = default
local_tmp = ${WORK}/tmp

[ssh_connection]
pipelining = True
ssh_args = -o ControlMaster=auto -o ControlPersist=120s -o UserKnownHostsFile=${WORK}/known_hosts -o StrictHostKeyChecking=yes
control_path_dir = ${WORK}/cp
`,
  );
  const become = USER === "root" ? "" : "  become: true\n";
  const cmdTasks = commands(ANSIBLE_DIR)
    .map((c, i) => `    - name: cmd-${i + 1}\n      ansible.builtin.command:\n        argv: ${JSON.stringify(c)}\n      changed_when: false\n`)
    .join("");
  fs.writeFileSync(
    path.join(WORK, "playbook.yml"),
    `- hosts: lab
  gather_facts: false
${become}  tasks:
    - name: assets
      ansible.builtin.copy:
        src: ${WORK}/assets/
        dest: ${ANSIBLE_DIR}/
        mode: "0600"
        owner: root
        group: root
${cmdTasks}`,
  );
  return path.join(WORK, "ansible.cfg");
}

function runAnsible(cfg: string): number {
  const t0 = performance.now();
  const r = spawnSync("ansible-playbook", [path.join(WORK, "playbook.yml")], {
    env: { ...process.env, ANSIBLE_CONFIG: cfg, ANSIBLE_NOCOLOR: "1" },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = performance.now() - t0;
  const recap = r.stdout.slice(r.stdout.indexOf("PLAY RECAP"));
  if (r.status !== 0 || /failed=[1-9]|unreachable=[1-9]/.test(recap)) {
    throw new Error(`ansible-playbook failed (exit ${r.status}):\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-2000)}`);
  }
  return ms;
}

/** Removes the benchmark's directories on every host (not timed), so the next push writes every file. */
async function clean(state: LabState, dirs: string[]): Promise<void> {
  const cleaner = new Executor();
  await Promise.all(targets(state, HOSTS, USER).map((h) => cleaner.run(h, ["rm", "-rf", "--", ...dirs])));
  await cleaner.close();
}

async function main(): Promise<number> {
  if (process.getuid?.() !== 0) throw new Error("bench:fanout must run as root (it starts a lab)");
  const { state, created } = await ensureLab();
  const { assets, source } = await assetSet();
  const bytes = assets.reduce((n, a) => n + Buffer.byteLength(a.content), 0);
  console.log(`assets: ${assets.length} files, ${(bytes / 1024).toFixed(1)} KiB (${source}); ${HOSTS} hosts; user ${USER}`);

  // Clean slate on every host (not timed) so both tools write every file.
  await clean(state, [EXEC_DIR, ANSIBLE_DIR, SSH2_DIR]);

  const baseRss = process.memoryUsage().rss;
  const exec = await runExecutor(state, assets);
  const again = await runExecutor(state, assets);
  console.log(`executor: ${exec.ms.toFixed(0)} ms wall, ${exec.cpuMs.toFixed(0)} ms CPU of this process, load average ${os.loadavg()[0]?.toFixed(1)} (${exec.execs} execs, ${exec.written} files written); idempotent re-run ${again.ms.toFixed(0)} ms (${again.written} written)`);
  console.log(`executor peak RSS: ${(exec.peakRss / 1048576).toFixed(1)} MiB (process RSS before the run ${(baseRss / 1048576).toFixed(1)} MiB)`);

  // SFTP writes as the login user: the reference runs as root only (the executor's sudo has no plain
  // counterpart). Three rounds on emptied directories, in alternating order (the first push to freshly
  // booted hosts is the slowest): the ratio is the median round's.
  let ssh2Ms: number | undefined;
  if (USER === "root") {
    const rounds: { exec: number; ssh2: number }[] = [];
    for (const ssh2First of [true, false, true]) {
      await clean(state, [EXEC_DIR, SSH2_DIR]);
      const ref = () => ssh2Reference(targets(state, HOSTS, USER), SSH2_DIR, assets, commands(SSH2_DIR));
      const first = ssh2First ? await ref() : (await runExecutor(state, assets)).ms;
      const second = ssh2First ? (await runExecutor(state, assets)).ms : await ref();
      rounds.push(ssh2First ? { ssh2: first, exec: second } : { exec: first, ssh2: second });
    }
    const ratios = rounds.map((r) => r.exec / r.ssh2).sort((a, b) => a - b);
    ssh2Ms = rounds.map((r) => r.ssh2).sort((a, b) => a - b)[1];
    console.log(`ssh2:     the plain ssh2 script (SFTP writes, no checks) against the executor, three rounds: ${rounds.map((r) => `${r.ssh2.toFixed(0)} vs ${r.exec.toFixed(0)} ms`).join(", ")}; executor / ssh2 median ${ratios[1]!.toFixed(2)} (goal: at most 1.2)`);
  }

  let ansibleMs: number | undefined;
  if (!flag("skip-ansible")) {
    const cfg = prepareAnsible(state, assets);
    ansibleMs = runAnsible(cfg);
    console.log(`ansible:  ${ansibleMs.toFixed(0)} ms, load average ${os.loadavg()[0]?.toFixed(1)} (ansible-core, forks ${Math.max(HOSTS, 5)}, pipelining, ControlPersist)`);
    console.log(`ratio:    ${(ansibleMs / exec.ms).toFixed(1)}× faster than Ansible`);
  }
  console.log(
    `RESULT ${JSON.stringify({ hosts: HOSTS, files: assets.length, executorMs: Math.round(exec.ms), executorCpuMs: Math.round(exec.cpuMs), rerunMs: Math.round(again.ms), ssh2Ms: ssh2Ms && Math.round(ssh2Ms), ansibleMs: ansibleMs && Math.round(ansibleMs), ratio: ansibleMs && +(ansibleMs / exec.ms).toFixed(1), peakRssMiB: +(exec.peakRss / 1048576).toFixed(1) })}`,
  );
  if (created && !flag("keep")) labDown(LAB, console.log);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`bench:fanout: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
