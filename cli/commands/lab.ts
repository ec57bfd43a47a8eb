// bootdeck lab — test hosts on this machine (network namespaces + sshd). See docs/lab.md.
import type { Command } from "./command";
import { defaultKubernetesVersion } from "../../lib/cluster/versions";
import {
  labCut,
  labDown,
  labHeal,
  labReboot,
  labRekey,
  labIpForward,
  labSwap,
  labVirtualNodes,
  labSlow,
  labStartSshd,
  labStatus,
  labStopSshd,
  labUp,
} from "../../lab/lab";
import { labHostMemory } from "../../lab/memory";
import { readState } from "../../lab/state";
import { conformanceTestVersion, ensureBinaries, missingBinaries, realVersions } from "../../lab/upstream";
import { ensureComponent } from "../../lab/upstream/build";
import { conformanceComponent } from "../../lab/upstream/components";
import { ensureClusterImages, ensureConformanceImages } from "../../lab/upstream/images";
import { ensureBaseImage } from "../../lab/base-image";

const help = `Usage: bootdeck lab <action> [--name NAME]   (default lab: dev; runs as root)

  up N                         start N hosts host-1..host-N (each boots systemd in systemd-nspawn)
  up --masters M --workers W   start master-1..M and worker-1..W
     [--kubernetes V1,V2]      the Kubernetes versions whose images its registry serves (default: the default
                               version; components are built first when missing, see binaries)
     [--debian 12|13]          the hosts' Debian release (default 12)
     [--bare]                  hosts without the kubelet's host packages and keepalived; their apt reaches
                               Debian's archive through the lab's proxy (Bootdeck installs what it needs)
                               A lab that is up and answers is reused; one whose hosts died is rebuilt.
  down                         remove the lab (safe to re-run, also after a crash)
  status                       hosts, addresses, state, and how to ssh to each
  cut HOST | heal HOST         take the host's link down / bring it back (heal also clears slow)
  slow HOST 200ms 5%           add delay and loss to its outgoing packets (tc netem; a userspace delayer where the kernel lacks netem)
  stop-sshd HOST | start-sshd HOST
  rekey HOST                   new host key (as after a reinstall), sshd restarted
  reboot HOST… | --masters | --all
                               power-cycle hosts (together): every process killed, then each boots from its
                               disk with a fresh network namespace (only its NIC), /run and cgroups: systemd,
                               its network, sshd and its enabled units; --without-systemd: its network and
                               sshd only, as a host whose init is not systemd (the next reboot boots systemd)
  swap HOST on|off             swap as the host sees it (/proc/swaps), for preflight's swap check
  binaries [--version V | --all] [--check]
                               build the upstream components a cluster of Kubernetes V runs (kube-apiserver,
                               kubelet, etcd, containerd, runc, CNI plugins, flannel, CoreDNS, …) from Go
                               modules into /var/cache/bootdeck-lab/upstream; cached ones are used at once;
                               --all: every profile's, the tests' own tools (the S3 server, promtool, the
                               newest profile's conformance suite and its images), the hosts' base image
                               and every profile's OCI images;
                               --check lists what is not built yet (exit 1 when something is missing)
  ip-forward HOST on|off       IPv4 forwarding in the host's network namespace (preflight reports it off; the runtime phase sets it to 1)
  virtual-nodes N --kubeconfig FILE
                               N virtual nodes (KWOK, no host behind them) in a bootstrapped lab cluster, for
                               scale tests; FILE is an admin kubeconfig; 0 removes them (so does down)

Labs: dev → 10.237.10.0/24, test → 10.237.20.0/24, others → 10.237.30.0/24 and up.
State: /run/bootdeck-lab/NAME/state.json`;

function takeOption(args: string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  if (i < 0) return undefined;
  const v = args[i + 1];
  if (v === undefined || v.startsWith("--")) throw new Error(`${flag} needs a value`);
  args.splice(i, 2);
  return v;
}

function count(v: string | undefined, what: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new Error(`${what} must be a whole number, got "${v}"`);
  return Number(v);
}

const log = (line: string) => console.log(line);

export const lab: Command = {
  async run(argv) {
    const args = [...argv];
    if (args.length === 0 || args.includes("--help") || args.includes("-h")) {
      console.log(help);
      return args.length === 0 ? 2 : 0;
    }
    const name = takeOption(args, "--name") ?? "dev";
    const [action, ...rest] = args;
    const host = () => {
      const h = rest[0];
      if (!h) throw new Error(`lab ${action} needs a HOST (see \`bootdeck lab status --name ${name}\`)`);
      return h;
    };
    switch (action) {
      case "up": {
        const masters = count(takeOption(rest, "--masters"), "--masters");
        const workers = count(takeOption(rest, "--workers"), "--workers");
        const kubernetesVersions = takeOption(rest, "--kubernetes")?.split(",").filter(Boolean);
        const debian = takeOption(rest, "--debian") ?? "12";
        if (debian !== "12" && debian !== "13") throw new Error(`--debian is 12 or 13, got "${debian}"`);
        const bare = rest.includes("--bare");
        if (bare) rest.splice(rest.indexOf("--bare"), 1);
        const hosts = count(rest[0], "N");
        if (hosts === undefined && masters === undefined && workers === undefined) {
          throw new Error("lab up needs N or --masters M --workers W");
        }
        const state = await labUp({ name, hosts, masters, workers, kubernetesVersions, suite: debian === "13" ? "trixie" : "bookworm", bare, log });
        console.log(`state: /run/bootdeck-lab/${state.name}/state.json`);
        return printStatus(name);
      }
      case "binaries": {
        const version = takeOption(rest, "--version");
        // --all: what the README's test command uses, every profile and the tests' own tools.
        const all = rest.includes("--all");
        const want = { versions: all ? realVersions() : [version ?? defaultKubernetesVersion], testTools: all };
        if (rest.includes("--check")) {
          const missing = missingBinaries(want);
          console.log(missing.length ? `not built yet: ${missing.join(", ")}` : "every component is in the cache");
          return missing.length ? 1 : 0;
        }
        await ensureBinaries(want, log);
        if (all) {
          // And what every lab makes from them: the hosts' base image and each version's OCI images, so
          // labs started at once (the test command's concurrent suites) only read them.
          // The default hosts, and the bare Debian 13 hosts the browser tests install packages on.
          await ensureBaseImage(log);
          await ensureBaseImage(log, { suite: "trixie", bare: true });
          for (const v of want.versions) await ensureClusterImages(v, log);
          const v = conformanceTestVersion();
          await ensureConformanceImages(v, await ensureComponent(conformanceComponent(v), log), log);
        }
        return 0;
      }
      case "down":
        labDown(name, log);
        return 0;
      case "status":
        return printStatus(name);
      case "cut":
        labCut(name, host());
        console.log(`${host()}: link down`);
        return 0;
      case "heal":
        labHeal(name, host());
        console.log(`${host()}: link up, no delay or loss`);
        return 0;
      case "slow": {
        const [, delay, loss] = rest;
        if (!delay) throw new Error("usage: bootdeck lab slow HOST 200ms 5%");
        labSlow(name, host(), delay, loss ?? "0%", log);
        return 0;
      }
      case "virtual-nodes": {
        const kubeconfig = takeOption(rest, "--kubeconfig");
        const n = count(rest[0], "N");
        if (n === undefined || !kubeconfig) throw new Error("usage: bootdeck lab virtual-nodes N --kubeconfig FILE [--name LAB]");
        const r = await labVirtualNodes(name, kubeconfig, n, log);
        console.log(n ? `${n} virtual nodes registered; KWOK keeps them Ready (pid ${r.pid}, log: ${r.log}); \`lab virtual-nodes 0\` or \`lab down\` removes them` : "virtual nodes removed");
        return 0;
      }
      case "swap": {
        const on = rest[1];
        if (on !== "on" && on !== "off") throw new Error("usage: bootdeck lab swap HOST on|off");
        labSwap(name, host(), on === "on");
        console.log(`${host()}: swap ${on} (as /proc/swaps shows it inside the host)`);
        return 0;
      }
      case "ip-forward": {
        const on = rest[1];
        if (on !== "on" && on !== "off") throw new Error("usage: bootdeck lab ip-forward HOST on|off");
        labIpForward(name, host(), on === "on");
        console.log(`${host()}: IPv4 forwarding ${on}`);
        return 0;
      }
      case "stop-sshd":
        labStopSshd(name, host());
        console.log(`${host()}: sshd stopped`);
        return 0;
      case "start-sshd":
        await labStartSshd(name, host());
        console.log(`${host()}: sshd started`);
        return 0;
      case "reboot": {
        const state = readState(name);
        if (!state) throw new Error(`lab "${name}" is not up`);
        const withoutSystemd = rest.includes("--without-systemd");
        const named = rest.filter((a) => a !== "--without-systemd");
        const targets = named.includes("--all") ? state.hosts.map((h) => h.name) : named.includes("--masters") ? state.hosts.filter((h) => h.role === "master").map((h) => h.name) : named;
        if (!targets.length) throw new Error("usage: bootdeck lab reboot HOST… | --masters | --all [--without-systemd]");
        await labReboot(name, targets, log, { withoutSystemd });
        return 0;
      }
      case "rekey": {
        const fp = await labRekey(name, host());
        console.log(`${host()}: new host key ${fp}`);
        return 0;
      }
      default:
        console.error(`bootdeck lab: unknown action "${action}"\n\n${help}`);
        return 2;
    }
  },
};

async function printStatus(name: string): Promise<number> {
  const { state, hosts } = await labStatus(name);
  console.log(`lab "${state.name}": ${state.subnet} on ${state.bridge}, ${hosts.length} hosts`);
  const memory = new Map(labHostMemory(state.hosts).map((m) => [m.name, m]));
  console.log(`${"HOST".padEnd(12)}${"ADDRESS".padEnd(16)}${"INIT".padEnd(8)}${"LINK".padEnd(6)}${"SSHD".padEnd(6)}${"MEM (PSS)".padEnd(11)}HOST KEY`);
  for (const h of hosts) {
    const mem = `${Math.round((memory.get(h.name)?.pssBytes ?? 0) / 1048576)} MiB`;
    console.log(
      `${h.name.padEnd(12)}${h.address.padEnd(16)}${(h.running ? "up" : "dead").padEnd(8)}${h.link.padEnd(6)}${(h.sshd ? "yes" : "no").padEnd(6)}${mem.padEnd(11)}${h.hostKeyFingerprint}`,
    );
  }
  console.log(`\nusers: root, ${state.users.sudo} (NOPASSWD sudo), ${state.users.sudoWithPassword} (sudo asks a password)`);
  const first = hosts[0];
  if (first) {
    console.log(`ssh: ssh -i ${state.adminKeyPath} -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=accept-new root@${first.address}`);
  }
  return hosts.every((h) => h.running && h.sshd) ? 0 : 1;
}
