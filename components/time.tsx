"use client";
// The zone every page shows times in, and the header's toggle. The choice lives in localStorage, so it
// holds across pages and tabs; the server renders UTC (it cannot know the browser's zone) and a browser
// that chose local time switches after hydration.
import { useSyncExternalStore } from "react";
import { formatTime, type TimeZoneChoice } from "./time-format";

const KEY = "bootdeck.timeZone";
const listeners = new Set<() => void>();

function read(): TimeZoneChoice {
  try {
    return window.localStorage.getItem(KEY) === "local" ? "local" : "utc";
  } catch {
    return "utc";
  }
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (e: StorageEvent) => e.key === KEY && listener();
  window.addEventListener("storage", onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", onStorage);
  };
}

export function setTimeZoneChoice(zone: TimeZoneChoice): void {
  try {
    window.localStorage.setItem(KEY, zone);
  } catch {
    /* private mode: the choice lasts for this page only */
  }
  for (const l of listeners) l();
}

export function useTimeZone(): TimeZoneChoice {
  return useSyncExternalStore(subscribe, read, () => "utc");
}

/** A point in time in the chosen zone, labelled; the other zone is the tooltip. */
export function Time({ iso, date, seconds, testId, className }: { iso: string; date?: boolean; seconds?: boolean; testId?: string; className?: string }) {
  const zone = useTimeZone();
  const other = zone === "utc" ? "local" : "utc";
  return (
    <time dateTime={iso} title={formatTime(iso, other, { date, seconds })} data-testid={testId} className={className}>
      {formatTime(iso, zone, { date, seconds })}
    </time>
  );
}

/** The header's switch between UTC and the browser's zone. */
export function TimeZoneToggle() {
  const zone = useTimeZone();
  return (
    <button
      type="button"
      className="rounded border border-slate-300 px-2 py-0.5 text-xs text-slate-700 hover:bg-slate-50"
      data-testid="tz-toggle"
      data-zone={zone}
      aria-label={`Times are shown in ${zone === "utc" ? "UTC" : "local time"}; switch to ${zone === "utc" ? "local time" : "UTC"}`}
      onClick={() => setTimeZoneChoice(zone === "utc" ? "local" : "utc")}
    >
      Times: {zone === "utc" ? "UTC" : "local"}
    </button>
  );
}
