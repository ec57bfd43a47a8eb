import { hostname } from "node:os";

// A process's id as a worker (the engine's runs, the webhook deliveries): host name and process id, so a
// process of this machine that is gone is known by it. Below every layer: the engine and the delivery
// queue both name themselves with it.
export function localWorkerId(pid = process.pid): string {
  return `w_${hostname()}_${pid}`;
}

/** The host name and process id a worker id carries, or null when it is not of this form. */
export function parseWorkerId(workerId: string): { host: string; pid: number } | null {
  const m = /^w_(.+)_(\d+)$/.exec(workerId);
  return m ? { host: m[1]!, pid: Number(m[2]) } : null;
}
