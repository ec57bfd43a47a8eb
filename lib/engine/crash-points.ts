import "server-only";
// Fault injection for the crash-point test: with BOOTDECK_CRASH_AFTER="TYPE[:KEY][#N]" the process
// kills itself with SIGKILL right after it has committed the Nth (default first) event of that type
// (and, given, of that step key or phase) — the moment after a write, which a test cannot hit from
// outside. Unset in every real deployment; nothing else reads it.
import { getEnv } from "../env";

/** What a crash point looks at of a committed event (events.ts passes its stored events). */
type CommittedEvent = { type: string; seq: number; data: Record<string, unknown> };

type CrashPoint = { type: string; key?: string; nth: number };

let point: CrashPoint | null | undefined;
let seen = 0;

export function parseCrashPoint(spec: string): CrashPoint {
  const m = /^([a-z.-]+)(?::([^#]+))?(?:#(\d+))?$/.exec(spec.trim());
  if (!m) throw new Error(`BOOTDECK_CRASH_AFTER must look like step.finished:kubelet/master-1#1, got "${spec}"`);
  return { type: m[1]!, key: m[2], nth: Number(m[3] ?? 1) };
}

/** The key an event is about: its step, or its phase. */
export function eventKey(e: Pick<CommittedEvent, "data">): string | undefined {
  const d = e.data;
  return typeof d.key === "string" ? d.key : typeof d.step === "string" ? d.step : typeof d.phase === "string" ? d.phase : undefined;
}

export function crashAfter(e: CommittedEvent): void {
  if (point === undefined) {
    const spec = getEnv().BOOTDECK_CRASH_AFTER;
    point = spec ? parseCrashPoint(spec) : null;
  }
  if (!point || e.type !== point.type || (point.key !== undefined && eventKey(e) !== point.key)) return;
  if (++seen < point.nth) return;
  process.stderr.write(`[bootdeck engine] crash point ${e.type}${point.key ? `:${point.key}` : ""}#${point.nth} reached at seq ${e.seq}: SIGKILL\n`);
  process.kill(process.pid, "SIGKILL");
}
