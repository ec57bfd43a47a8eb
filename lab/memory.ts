// Memory per lab host: every process in the host's cgroup (init, sshd, containerd, the kubelet and
// every container it runs, whose cgroups are below the host's), summed as PSS so that pages shared
// between hosts (the same binaries, the base image's libraries) are split between them instead of
// counted once per host.
import fs from "node:fs";
import type { LabHostState } from "./state";

export type HostMemory = { name: string; role: LabHostState["role"]; processes: number; rssBytes: number; pssBytes: number };

/** The lab and host a process belongs to, from its cgroup (lab/cgroups.ts: …/bootdeck-lab/LAB/HOST/…). */
const hostOf = (pid: string): string | undefined => {
  try {
    return /\/bootdeck-lab\/([a-z0-9]+\/[a-z0-9-]+)(?:\/|$)/m.exec(fs.readFileSync(`/proc/${pid}/cgroup`, "utf8"))?.[1];
  } catch {
    return undefined; // gone
  }
};

/** A `Field:   123 kB` line of a /proc file, in bytes (0 when missing). */
const kbField = (text: string, field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0) * 1024;

/** The `Rss:` and `Pss:` lines of /proc/PID/smaps_rollup, in bytes. */
export function parseSmapsRollup(text: string): { rss: number; pss: number } {
  return { rss: kbField(text, "Rss"), pss: kbField(text, "Pss") };
}

export function labHostMemory(hosts: readonly LabHostState[]): HostMemory[] {
  // A host's key is LAB/HOST, as its cgroup path names it; the lab's name is in its network namespace's (bdl-LAB-HOST).
  const key = (h: LabHostState) => `${h.netns.slice("bdl-".length, -(h.name.length + 1))}/${h.name}`;
  const byKey = new Map<string, HostMemory>(hosts.map((h) => [key(h), { name: h.name, role: h.role, processes: 0, rssBytes: 0, pssBytes: 0 }]));
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    const m = byKey.get(hostOf(pid) ?? "");
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
  return hosts.map((h) => byKey.get(key(h)) ?? { name: h.name, role: h.role, processes: 0, rssBytes: 0, pssBytes: 0 });
}

/** This machine's memory in use (MemTotal − MemAvailable), in bytes. */
export function machineMemoryUsed(): number {
  const text = fs.readFileSync("/proc/meminfo", "utf8");
  return kbField(text, "MemTotal") - kbField(text, "MemAvailable");
}
