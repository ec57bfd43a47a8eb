// The machine's CPU as /proc reads it, for benchmarks that must say whether the cores were the limit:
// busy and total time of every core, and CPU time per process.
import fs from "node:fs";

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
export const TICKS_PER_S = 100;

/** The machine's CPU time, busy and total, in clock ticks (every core, every process). */
export function cpuTicks(): { busy: number; total: number } {
  const f = fs.readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - (f[3] ?? 0) - (f[4] ?? 0), total }; // idle, iowait
}
/** A process's CPU time (user + system) in seconds. */
export function processCpuS(pid: number | undefined): number {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(f[11]) + Number(f[12])) / TICKS_PER_S; // utime, stime
  } catch {
    return 0;
  }
}
export type ProcessCpu = { comm: string; start: string; s: number };
/** Every live process on the machine: its command name (kernel workers as "kworker"), start time and CPU time (user + system, seconds), by pid. */
export function cpuByProcess(): Map<number, ProcessCpu> {
  const by = new Map<number, ProcessCpu>();
  for (const pid of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const comm = text.slice(text.indexOf("(") + 1, text.lastIndexOf(")")).replace(/^kworker\/.*/, "kworker").replace(/\/\d+$/, "/N");
      const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
      by.set(Number(pid), { comm, start: f[19] ?? "", s: (Number(f[11]) + Number(f[12])) / TICKS_PER_S });
    } catch {
      // exited while we looked
    }
  }
  return by;
}
/**
 * The largest consumers of CPU between two cpuByProcess() snapshots, summed by command name: each
 * process's difference (its whole time if it started in between). Processes that exited in between
 * (an SSH session, a script on a host) are not counted.
 */
export function topCpu(a: Map<number, ProcessCpu>, b: Map<number, ProcessCpu>, n = 8): string {
  const by = new Map<string, number>();
  for (const [pid, p] of b) {
    const before = a.get(pid);
    const d = before && before.start === p.start ? p.s - before.s : p.s;
    by.set(p.comm, (by.get(p.comm) ?? 0) + d);
  }
  return [...by]
    .filter(([, d]) => d > 0)
    .sort((x, y) => y[1] - x[1])
    .slice(0, n)
    .map(([comm, d]) => `${comm} ${d.toFixed(1)} s`)
    .join(", ");
}
