"use client";
// Noticing a run without watching it: the tab's title says the run's state (so a background tab shows
// "✓ Succeeded" or "? Needs a decision"), and, for those who ask, the browser shows a notification
// when the run ends or stops for a decision while the page is open.
import { useEffect, useRef, useSyncExternalStore } from "react";
import { progressOf } from "./grid-model";
import { runTypeTitle } from "./run-status";

type RunLike = { id: string; type: string; status: string; clusterName: string; steps: { status: string; error: string | null; startedAt: string | null }[]; summary: Record<string, unknown> | null };

const titleState: Record<string, string> = {
  planned: "◇ Planned",
  succeeded: "✓ Succeeded",
  failed: "✕ Failed",
  "needs-decision": "? Needs a decision",
  cancelled: "⊘ Cancelled",
};

/** "▶ 12/41 · Bootstrap cluster · lab-dev — Bootdeck", "? Needs a decision · Bootstrap cluster · lab-dev — Bootdeck". */
export function runDocumentTitle(run: RunLike): string {
  const p = progressOf(run.steps);
  const state = run.status === "running" ? `▶ ${p.finished}/${p.total}` : (titleState[run.status] ?? run.status);
  return `${state} · ${runTypeTitle[run.type] ?? run.type} · ${run.clusterName} — Bootdeck`;
}

/** The notification's title and body when a run stops, or null while it is still going. */
export function runNotification(run: RunLike): { title: string; body: string } | null {
  const what = `${runTypeTitle[run.type] ?? run.type} of ${run.clusterName}`;
  const message = typeof run.summary?.message === "string" ? run.summary.message : "";
  if (run.status === "succeeded") return { title: `${what} succeeded`, body: message };
  if (run.status === "failed") return { title: `${what} failed`, body: message };
  if (run.status === "needs-decision") return { title: `${what} needs a decision`, body: message || "Preflight warnings wait for an admin or lead to accept them." };
  if (run.status === "cancelled") return { title: `${what} was cancelled`, body: message };
  return null;
}

const KEY = "bootdeck.notifyRuns";
const listeners = new Set<() => void>();
const readOptIn = () => {
  try {
    return window.localStorage.getItem(KEY) === "on";
  } catch {
    return false;
  }
};

/** Whether this browser asked to be notified (stored in localStorage), and a setter. */
export function useNotifyOptIn(): [boolean, (on: boolean) => void] {
  const on = useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    readOptIn,
    () => false,
  );
  const set = (value: boolean) => {
    try {
      window.localStorage.setItem(KEY, value ? "on" : "off");
    } catch {
      /* private mode */
    }
    for (const l of listeners) l();
  };
  return [on, set];
}

/** Keeps the tab's title on the run's state and notifies (when opted in and allowed) when it stops. */
export function useRunNotice(run: RunLike | undefined, optedIn: boolean): void {
  const last = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (!run) return;
    const title = runDocumentTitle(run);
    document.title = title;
    // The head's <title> also belongs to the root layout ("Bootdeck"), rendered by React and Next.js:
    // once, under load, the tab kept "Bootdeck" after this effect had run (the writer was not caught),
    // and nothing here runs again until the run changes. Whatever rewrites the head, the run's title goes back.
    const observer = new MutationObserver(() => {
      if (document.title !== title) document.title = title;
    });
    observer.observe(document.head, { subtree: true, childList: true, characterData: true });
    return () => observer.disconnect();
  }, [run]);
  useEffect(() => () => void (document.title = "Bootdeck"), []);
  useEffect(() => {
    if (!run) return;
    const was = last.current;
    last.current = run.status;
    // Only a change seen on this page: opening a finished run is not news.
    if (was !== "running" || run.status === "running") return;
    const n = runNotification(run);
    if (!n || !optedIn || typeof Notification === "undefined" || Notification.permission !== "granted") return;
    // The tag keeps two tabs of the same run to one notification.
    new Notification(n.title, { body: n.body, tag: `${run.id}:${run.status}` });
  }, [run, optedIn]);
}
