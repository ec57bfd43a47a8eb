// Memory per lab host: every process in the host's PID namespace (init, sshd, the kubelet stand-in,
// etcd, the pods it runs), summed as PSS so that pages shared between hosts (Node's code, the base
// image's libraries) are split between them instead of counted once per host.
import fs from "node:fs";
import type { LabHostState } from "./state";

export type HostMemory = { name: string; role: LabHostState["role"]; processes: number; rssBytes: number; pssBytes: number };

const nsOf = (pid: string | number): string | undefined => {
  try {
    return fs.readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return undefined; // gone, or a kernel thread we may not read
  }
};

/** A `Field:   123 kB` line of a /proc file, in bytes (0 when missing). */
const kbField = (text: string, field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0) * 1024;

/** The `Rss:` and `Pss:` lines of /proc/PID/smaps_rollup, in bytes. */
export function parseSmapsRollup(text: string): { rss: number; pss: number } {
  return { rss: kbField(text, "Rss"), pss: kbField(text, "Pss") };
}

export function labHostMemory(hosts: readonly LabHostState[]): HostMemory[] {
  const byNs = new Map<string, HostMemory>();
  for (const h of hosts) {
    const ns = nsOf(h.initPid);
    if (ns) byNs.set(ns, { name: h.name, role: h.role, processes: 0, rssBytes: 0, pssBytes: 0 });
  }
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    const m = byNs.get(nsOf(pid) ?? "");
    if (!m) continue;
    try {
      const { rss, pss } = parseSmapsRollup(fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
      m.processes++;
      m.rssBytes += rss;
      m.pssBytes += pss;
    } catch {
      // exited while we looked
    }
  }
  return hosts.map((h) => [...byNs.values()].find((m) => m.name === h.name) ?? { name: h.name, role: h.role, processes: 0, rssBytes: 0, pssBytes: 0 });
}

/** This machine's memory in use (MemTotal − MemAvailable), in bytes. */
export function machineMemoryUsed(): number {
  const text = fs.readFileSync("/proc/meminfo", "utf8");
  return kbField(text, "MemTotal") - kbField(text, "MemAvailable");
}
