// The fan-out benchmark's floor: the same work as the executor's push (every file of the asset set,
// then the commands, on every host, 64 hosts at a time) written the plain way with ssh2 alone — one
// connection per host, the host key checked against its pin, the directories made with one command,
// each file written over SFTP, each command run and its exit status checked. No checksums, no atomic
// renames, no retries, no events: what the executor adds is measured against this.
import path from "node:path";
import { Client, type SFTPWrapper } from "ssh2";
import { decideHostKey, fingerprint } from "../lib/ssh/host-key";
import { quote, shellCommand } from "../lib/ssh/quote";
import type { HostTarget } from "../lib/ssh/types";
import type { Asset } from "./lab-targets";

function connect(h: HostTarget): Promise<Client> {
  return new Promise((resolve, reject) => {
    const c = new Client();
    c.on("ready", () => resolve(c)).on("error", reject);
    if (h.auth.kind !== "key") throw new Error("the reference logs in with a key only");
    c.connect({
      host: h.address,
      port: h.port,
      username: h.user,
      privateKey: h.auth.privateKey,
      hostVerifier: (key: Buffer) => decideHostKey({ ...h.hostKey, requirePinned: true }, fingerprint(key)).accept,
    });
  });
}

function exec(c: Client, command: string): Promise<void> {
  return new Promise((resolve, reject) => {
    c.exec(command, (err, stream) => {
      if (err) return reject(err);
      let stderr = "";
      stream.on("data", () => undefined);
      stream.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
      stream.on("close", (code: number) => (code === 0 ? resolve() : reject(new Error(`${command}: exit ${code}: ${stderr}`))));
    });
  });
}

const sftpOf = (c: Client) => new Promise<SFTPWrapper>((resolve, reject) => c.sftp((err, s) => (err ? reject(err) : resolve(s))));
const writeFile = (s: SFTPWrapper, file: string, content: string, mode: number) =>
  new Promise<void>((resolve, reject) => s.writeFile(file, content, { mode }, (err) => (err ? reject(err) : resolve())));

/** Pushes `assets` under `dir` and runs `commands` on every host, `concurrency` hosts at a time; returns the wall time in ms. */
export async function ssh2Reference(hosts: HostTarget[], dir: string, assets: Asset[], commands: string[][], concurrency = 64): Promise<number> {
  const dirs = [...new Set(assets.map((a) => path.posix.dirname(`${dir}/${a.path}`)))];
  const t0 = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < hosts.length) {
      const h = hosts[next++]!;
      const c = await connect(h);
      try {
        await exec(c, `mkdir -p ${dirs.map(quote).join(" ")}`);
        const s = await sftpOf(c);
        await Promise.all(assets.map((a) => writeFile(s, `${dir}/${a.path}`, a.content, a.mode)));
        s.end();
        for (const cmd of commands) await exec(c, shellCommand(cmd));
      } finally {
        c.end();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, hosts.length) }, worker));
  return performance.now() - t0;
}
