// Reaching a bootstrapped lab cluster from tests and benchmarks: ssh to its hosts, kubectl from this
// machine with the cluster's admin kubeconfig, and probes of the API address — from this machine and
// from inside each host's network namespace — that time when it stops and starts answering.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { netnsName } from "../lab/config";
import type { LabState } from "../lab/state";

export function sshTo(lab: LabState, host: string, script: string, timeoutMs = 60_000): string {
  const h = lab.hosts.find((x) => x.name === host);
  if (!h) throw new Error(`no lab host ${host}`);
  return execFileSync("ssh", ["-i", lab.adminKeyPath, "-o", "UserKnownHostsFile=/dev/null", "-o", "StrictHostKeyChecking=no", "-o", "LogLevel=error", "-o", "ConnectTimeout=5", `root@${h.address}`, script], { encoding: "utf8", timeout: timeoutMs });
}

/**
 * Where the API address stands, one line per master, for a failed test's report: whether it holds the
 * address, its keepalived, its own API server's /readyz, what it knows of the address's MAC, and whether
 * it reaches the address itself. Never throws: a master that does not answer says so.
 */
export function addressReport(lab: LabState, masters: readonly string[], vip: string, port = 6443): string {
  const script = [
    `held=$(ip -o addr show dev eth0 | grep -c ' ${vip}/')`,
    "ka=$(systemctl is-active bootdeck-keepalived 2>/dev/null)",
    `own=$(curl -sk -o /dev/null -w '%{http_code}' --max-time 3 https://127.0.0.1:${port}/readyz)`,
    `via=$(curl -sk -o /dev/null -w '%{http_code}' --max-time 3 https://${vip}:${port}/readyz)`,
    `neigh=$(ip neigh show ${vip} | head -1)`,
    'echo "holds address: $held; keepalived $ka; own /readyz $own; address /readyz $via; neighbour: ${neigh:-none}"',
    "journalctl -u bootdeck-keepalived --no-pager -n 4 -o cat 2>/dev/null | sed 's/^/  keepalived: /'",
  ].join("; ");
  return masters
    .map((m) => {
      try {
        return `${m}: ${sshTo(lab, m, script, 20_000).trim()}`;
      } catch (err) {
        return `${m}: no answer over ssh (${err instanceof Error ? err.message.split("\n")[0] : String(err)})`;
      }
    })
    .join("\n");
}

/** Writes a kubeconfig and returns a kubectl runner (this machine's kubectl, through the API address). */
export function kubectlWith(kubeconfigYaml: string): (args: string[], input?: string) => string {
  const dir = mkdtempSync(path.join(tmpdir(), "bootdeck-kubectl-"));
  const file = path.join(dir, "kubeconfig");
  writeFileSync(file, kubeconfigYaml, { mode: 0o600 });
  return (args, input) => execFileSync("kubectl", ["--kubeconfig", file, "--request-timeout=10s", ...args], { encoding: "utf8", input, timeout: 30_000 });
}

/** `ms`: how long the probe took to answer or give up, where known. */
export type Probe = { at: number; ok: boolean; status: number; ms?: number };

/**
 * GETs https://HOST:PORT`path` every `intervalMs` from this machine, each on a new connection (so a
 * probe measures what a new client meets), until stopped. `ok` = answered 200. With `client` (the admin
 * credentials) the probe is an API request like any client's: GET /api/v1/namespaces/default is a
 * quorum read, so it needs the API server and etcd.
 */
export function probeApi(host: string, port: number, intervalMs: number, opts: { path?: string; client?: { certPem: string; keyPem: string } } = {}): { stop: () => Probe[] } {
  const probes: Probe[] = [];
  let stopped = false;
  const one = () =>
    new Promise<void>((resolve) => {
      const at = Date.now();
      const req = https.get({ host, port, path: opts.path ?? "/readyz", rejectUnauthorized: false, agent: false, timeout: Math.max(500, intervalMs * 8), ...(opts.client ? { cert: opts.client.certPem, key: opts.client.keyPem } : {}) }, (res) => {
        res.resume();
        res.on("end", () => {
          probes.push({ at, ok: res.statusCode === 200, status: res.statusCode ?? 0, ms: Date.now() - at });
          resolve();
        });
      });
      req.on("timeout", () => req.destroy(new Error("timeout")));
      req.on("error", () => {
        probes.push({ at, ok: false, status: 0, ms: Date.now() - at });
        resolve();
      });
    });
  const loop = async () => {
    while (!stopped) {
      const t = Date.now();
      void one();
      await new Promise((r) => setTimeout(r, Math.max(0, intervalMs - (Date.now() - t))));
    }
  };
  void loop();
  return {
    stop: () => {
      stopped = true;
      return probes.sort((a, b) => a.at - b.at);
    },
  };
}

/**
 * The same probe from inside a lab host's network namespace (`netns-probe.mjs`, a process of its own,
 * so the caller's event loop cannot delay it): what that node meets when it opens a connection to the
 * API address. Each probe gives up after `maxTimeS` (default 1 s); `ms` is how long it took. By default
 * a probe starts `intervalMs` after the previous one started, or when it ended if it took longer (one
 * at a time); with `fixedCadence`, one starts every `intervalMs` whatever the others do. With `client`,
 * it sends the admin credentials (the files live until `stop`).
 */
export function probeFromHost(lab: LabState, host: string, url: string, intervalMs: number, opts: { client?: { certPem: string; keyPem: string }; maxTimeS?: number; fixedCadence?: boolean } = {}): { stop: () => Promise<Probe[]> } {
  const dir = mkdtempSync(path.join(tmpdir(), "bootdeck-probe-"));
  const auth: string[] = [];
  if (opts.client) {
    writeFileSync(path.join(dir, "client.crt"), opts.client.certPem, { mode: 0o600 });
    writeFileSync(path.join(dir, "client.key"), opts.client.keyPem, { mode: 0o600 });
    auth.push(path.join(dir, "client.crt"), path.join(dir, "client.key"));
  }
  const args = [url, String(intervalMs), String(opts.maxTimeS ?? 1), opts.fixedCadence ? "fixed" : "sequential", ...auth];
  const child: ChildProcess = spawn("ip", ["netns", "exec", netnsName(lab.name, host), process.execPath, path.join(__dirname, "netns-probe.mjs"), ...args], { stdio: ["ignore", "pipe", "ignore"] });
  let out = "";
  child.stdout?.on("data", (b: Buffer) => (out += b.toString()));
  return {
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", () => {
          rmSync(dir, { recursive: true, force: true });
          resolve(
            out
              .split("\n")
              .map((l) => l.trim().split(" "))
              .filter((p) => p.length === 3 && /^\d+$/.test(p[0] ?? ""))
              .map(([t, c, secs]) => ({ at: Number(t), ok: c === "200", status: Number(c) || 0, ms: Math.round(Number(secs) * 1000) }))
              .sort((a, b) => a.at - b.at),
          );
        });
        child.kill("SIGTERM");
      }),
  };
}

/**
 * Failed probes (ms) grouped into stalls: failures less than `gapMs` apart are one stall (probes time
 * out after 1 s, so one stall of the answering API server fails one probe or several, as it lasts).
 */
export function stalls(failuresMs: number[], gapMs = 1_500): number[][] {
  const out: number[][] = [];
  for (const at of [...failuresMs].sort((a, b) => a - b)) {
    const last = out.at(-1);
    if (last && at - last.at(-1)! < gapMs) last.push(at);
    else out.push([at]);
  }
  return out;
}

/**
 * From `since` (ms after it): when probes first failed; `backMs`, the first answer after the last failure;
 * `settledMs`, the first answer after which every probe answered for `holdMs` (the address works again
 * and keeps working); and `laterFailures`, the failed probes after that.
 */
export function outage(
  probes: Probe[],
  since: number,
  holdMs = 3_000,
): { firstFailMs: number | undefined; backMs: number | undefined; settledMs: number | undefined; laterFailures: number[]; answered: number; total: number } {
  const after = probes.filter((p) => p.at >= since);
  const failed = after.filter((p) => !p.ok);
  const lastFail = failed.at(-1);
  const back = lastFail ? after.find((p) => p.ok && p.at > lastFail.at) : after.find((p) => p.ok);
  const settled = after.find((p, i) => p.ok && after.slice(i).every((q) => q.ok || q.at > p.at + holdMs) && after.at(-1)!.at >= p.at + holdMs);
  return {
    firstFailMs: failed[0] ? failed[0].at - since : undefined,
    backMs: back ? back.at - since : undefined,
    settledMs: settled ? settled.at - since : undefined,
    laterFailures: settled ? failed.filter((p) => p.at > settled.at).map((p) => p.at - since) : [],
    answered: after.filter((p) => p.ok).length,
    total: after.length,
  };
}
