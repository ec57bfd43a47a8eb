// The fleet list's rules, without React: what counts as needing attention, and what the search and
// filters keep. Unit-tested in fleet-model.test.ts.
import type { FleetRow } from "@/lib/clusters/fleet";

export const CERT_SOON_DAYS = 30;
const DAY = 86_400_000;

export type CertState = "expired" | "soon" | "ok";

export function certState(notAfter: string, now: number): CertState {
  const left = Date.parse(notAfter) - now;
  return left <= 0 ? "expired" : left < CERT_SOON_DAYS * DAY ? "soon" : "ok";
}

export function daysLeft(notAfter: string, now: number): number {
  return Math.trunc((Date.parse(notAfter) - now) / DAY);
}

/** A scheduled backup starts within a tick of its due time and takes minutes: not overdue meanwhile. */
export const BACKUP_GRACE_MINUTES = 30;
const MINUTE = 60_000;

export type BackupState = "never" | "old" | "ok";

/**
 * How old a cluster's newest backup may get: its schedule's interval (and the grace), or a day without
 * a schedule. "never" is not "old": a cluster not bootstrapped yet has nothing to back up, and a
 * schedule that takes none is its own alert (lib/backups/schemas.ts).
 */
export function backupMaxAgeMs(intervalMinutes: number | null): number {
  return intervalMinutes === null ? DAY : (intervalMinutes + BACKUP_GRACE_MINUTES) * MINUTE;
}

export function backupState(b: FleetRow["backup"], now: number): BackupState {
  if (b.lastAt === null) return "never";
  return now - Date.parse(b.lastAt) > backupMaxAgeMs(b.intervalMinutes) ? "old" : "ok";
}

/** Why a cluster needs someone's attention; empty when it does not. */
export function attentionReasons(c: FleetRow, now: number): string[] {
  const out: string[] = [];
  if (c.lastRun?.status === "failed") out.push("last run failed");
  if (c.lastRun?.status === "needs-decision") out.push("a run needs a decision");
  if (c.nodes && c.nodes.ready < c.nodes.total) out.push(`${c.nodes.total - c.nodes.ready} node${c.nodes.total - c.nodes.ready === 1 ? "" : "s"} not Ready`);
  if (c.certificates) {
    const s = certState(c.certificates.notAfter, now);
    if (s !== "ok") out.push(s === "expired" ? "a certificate has expired" : "certificates expire soon");
  }
  if (backupState(c.backup, now) === "old") out.push(c.backup.intervalMinutes === null ? "no backup for over a day" : "backup overdue");
  return out;
}

export type FleetFilter = { query: string; state: "all" | "attention" | "running" | "healthy" | "never-run" | "certs-soon"; version: string };
export const allClusters: FleetFilter = { query: "", state: "all", version: "all" };

export function filterFleet(rows: readonly FleetRow[], f: FleetFilter, now: number): FleetRow[] {
  const q = f.query.trim().toLowerCase();
  return rows.filter((c) => {
    if (q && !c.name.toLowerCase().includes(q) && !c.kubernetesVersion.includes(q)) return false;
    if (f.version !== "all" && c.kubernetesVersion !== f.version) return false;
    switch (f.state) {
      case "attention":
        return attentionReasons(c, now).length > 0;
      case "healthy":
        return attentionReasons(c, now).length === 0 && c.lastRun?.status === "succeeded";
      case "running":
        return c.busy;
      case "never-run":
        return c.lastRun === null;
      case "certs-soon":
        return c.certificates !== null && certState(c.certificates.notAfter, now) !== "ok";
      default:
        return true;
    }
  });
}
