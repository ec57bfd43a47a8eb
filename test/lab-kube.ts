// Test helpers for a lab cluster: shell on a host over SSH with the lab's admin key, and kubectl on a
// master with any of the credentials the host holds. Test code only.
import { execFileSync, spawn } from "node:child_process";
import type { LabState } from "../lab/state";

export type LabKube = {
  /** Runs a shell script on a host; throws with its output when it exits non-zero. */
  ssh(host: string, script: string): string;
  /** Like ssh, but returns the exit code and the combined output instead of throwing. */
  trySsh(host: string, script: string): { code: number; out: string };
  /** kubectl on `host` (default master-1) as the admin (the master's /etc/kubernetes/admin.conf) or with `kubeconfig`. */
  kubectl(args: string, opts?: { host?: string; kubeconfig?: string; input?: string }): string;
  tryKubectl(args: string, opts?: { host?: string; kubeconfig?: string }): { code: number; out: string };
  /** Like ssh, without blocking this process (several hosts at once); `input` is the script's stdin. */
  sshAsync(host: string, script: string, input?: string | Buffer): Promise<string>;
};

/** kubectl on a master as the admin, for a script that pipes its output further on the host. */
export const ADMIN_KUBECTL = "kubectl --kubeconfig /etc/kubernetes/admin.conf";

export function labKube(lab: LabState): LabKube {
  const address = (host: string) => {
    const h = lab.hosts.find((x) => x.name === host);
    if (!h) throw new Error(`lab ${lab.name} has no host ${host}`);
    return h.address;
  };
  const sshArgs = (host: string, script: string) => ["-i", lab.adminKeyPath, "-o", "UserKnownHostsFile=/dev/null", "-o", "StrictHostKeyChecking=no", "-o", "LogLevel=error", "-o", "BatchMode=yes", `root@${address(host)}`, script];
  // Longer than any kubectl wait a test asks for (at most 4 min), so the wait's own error is what shows.
  const trySsh = (host: string, script: string, input?: string) => {
    try {
      return { code: 0, out: execFileSync("ssh", sshArgs(host, script), { encoding: "utf8", input, timeout: 300_000, stdio: ["pipe", "pipe", "pipe"] }) };
    } catch (err) {
      const e = err as { status?: number; stdout?: string; stderr?: string };
      return { code: e.status ?? 1, out: `${e.stdout ?? ""}${e.stderr ?? ""}` };
    }
  };
  const ssh = (host: string, script: string, input?: string) => {
    const r = trySsh(host, script, input);
    if (r.code !== 0) throw new Error(`on ${host}: ${script}\nexit ${r.code}: ${r.out}`);
    return r.out;
  };
  const kubectlScript = (args: string, kubeconfig?: string) => `${kubeconfig ? `kubectl --kubeconfig ${kubeconfig}` : ADMIN_KUBECTL} --request-timeout=20s ${args}`;
  const sshAsync = (host: string, script: string, input?: string | Buffer) =>
    new Promise<string>((resolve, reject) => {
      const child = spawn("ssh", sshArgs(host, script), { stdio: ["pipe", "pipe", "pipe"] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on("data", (b: Buffer) => out.push(b));
      child.stderr.on("data", (b: Buffer) => err.push(b));
      child.on("error", reject);
      child.on("close", (code) => {
        const [stdout, stderr] = [out, err].map((bs) => Buffer.concat(bs).toString("utf8"));
        if (code === 0) resolve(stdout!);
        else reject(new Error(`on ${host}: ${script.split("\n")[0]}\nexit ${code}: ${`${stdout}${stderr}`.slice(-4000)}`));
      });
      child.stdin.end(input ?? "");
    });
  return {
    sshAsync,
    ssh: (host, script) => ssh(host, script),
    trySsh: (host, script) => trySsh(host, script),
    kubectl: (args, opts = {}) => ssh(opts.host ?? "master-1", kubectlScript(args, opts.kubeconfig), opts.input),
    tryKubectl: (args, opts = {}) => trySsh(opts.host ?? "master-1", kubectlScript(args, opts.kubeconfig)),
  };
}
