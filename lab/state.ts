// The lab's runtime state file (/run/bootdeck-lab/<name>/state.json): what tests and the dashboard read.
import fs from "node:fs";
import { statePath } from "./config";

export type LabHostState = {
  name: string;
  role: "master" | "worker" | "host";
  address: string;
  port: number;
  netns: string;
  /** Interface name inside the host's network namespace. */
  iface: string;
  /** Host-side (root namespace) end of the veth pair; made again, with the same MAC, at every power-on. */
  veth: string;
  mac: string;
  /** Directory holding the overlay layers and merged root. */
  dir: string;
  root: string;
  /** systemd-nspawn --bind= arguments: the host's own disk's directories. */
  binds: string[];
  /** The host's power script (lab/host-power.sh), leader of its process group; its init is found by hostInitPid. */
  powerPid: number;
  hostKeyFingerprint: string;
};

export type LabState = {
  name: string;
  subnet: string;
  bridge: string;
  gateway: string;
  image: string;
  adminKeyPath: string;
  adminPublicKey: string;
  users: { root: string; sudo: string; sudoWithPassword: string };
  /** Lab-only password of root and the users (password-auth tests). */
  password: string;
  /** Base URL of the lab's binary mirror on the bridge (upstream layouts under /dl.k8s.io and /github.com). */
  mirrorUrl: string | null;
  /** Bare hosts' HTTP proxy to Debian's archive on the bridge (lab/apt-proxy.ts), or null. */
  aptProxyUrl?: string | null;
  /** The lab's image registry on the bridge (TLS with the lab's CA, one user). */
  registry: { address: string; caFile: string; username: string; passwordFile: string } | null;
  createdAt: string;
  hosts: LabHostState[];
};

export function readState(name: string): LabState | undefined {
  try {
    return JSON.parse(fs.readFileSync(statePath(name), "utf8")) as LabState;
  } catch {
    return undefined;
  }
}

export function writeState(state: LabState): void {
  const p = statePath(state.name);
  fs.writeFileSync(`${p}.tmp`, JSON.stringify(state, null, 2));
  fs.renameSync(`${p}.tmp`, p);
}

export function findHost(state: LabState, host: string): LabHostState {
  const h = state.hosts.find((x) => x.name === host || x.address === host);
  if (!h) throw new Error(`lab "${state.name}" has no host "${host}" (hosts: ${state.hosts.map((x) => x.name).join(", ")})`);
  return h;
}
