// Every time the dashboard shows is in one zone, named next to it: UTC (the default, as in the audit log
// and the hosts' journals) or the browser's local zone. Pure functions; the zone preference is in time.tsx.

export type TimeZoneChoice = "utc" | "local";

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** The browser's zone as a short name ("CET", "GMT+1"); "UTC" when the local zone is UTC. */
export function localZoneName(at: Date): string {
  const part = new Intl.DateTimeFormat("en-GB", { timeZoneName: "short" }).formatToParts(at).find((p) => p.type === "timeZoneName");
  return part?.value ?? "local";
}

/**
 * "2026-12-01 13:45:02 UTC" (or "… CET" in the local zone): a fixed, sortable form that reads the
 * same in every locale. `date` leaves the time of day out ("2026-12-01 UTC"); `seconds: false` cuts them.
 */
export function formatTime(iso: string | Date, zone: TimeZoneChoice, opts: { date?: boolean; seconds?: boolean } = {}): string {
  const d = typeof iso === "string" ? new Date(iso) : iso;
  if (Number.isNaN(d.getTime())) return "";
  const utc = zone === "utc";
  const y = utc ? d.getUTCFullYear() : d.getFullYear();
  const mo = (utc ? d.getUTCMonth() : d.getMonth()) + 1;
  const day = utc ? d.getUTCDate() : d.getDate();
  const label = utc ? "UTC" : localZoneName(d);
  if (opts.date) return `${y}-${pad(mo)}-${pad(day)} ${label}`;
  const h = utc ? d.getUTCHours() : d.getHours();
  const mi = utc ? d.getUTCMinutes() : d.getMinutes();
  const s = utc ? d.getUTCSeconds() : d.getSeconds();
  return `${y}-${pad(mo)}-${pad(day)} ${pad(h)}:${pad(mi)}${opts.seconds === false ? "" : `:${pad(s)}`} ${label}`;
}

/** "3 min ago", "2 h ago", "5 d ago", "in 12 d": how old a fact is, or how far off a date is. */
export function relativeTime(iso: string, now: number): string {
  const ms = now - Date.parse(iso);
  if (Number.isNaN(ms)) return "";
  const future = ms < 0;
  const s = Math.round(Math.abs(ms) / 1000);
  const text = s < 60 ? `${s} s` : s < 3600 ? `${Math.floor(s / 60)} min` : s < 172_800 ? `${Math.floor(s / 3600)} h` : `${Math.floor(s / 86_400)} d`;
  return future ? `in ${text}` : `${text} ago`;
}
