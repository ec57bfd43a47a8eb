"use client";
// Asks before leaving a form with unsaved changes: closing or reloading the tab (the browser's own
// prompt), following a link inside the dashboard, and the browser's Back and Forward (a confirm dialog;
// "Cancel" stays on the form with what was entered).
//
// Back and Forward reach the App Router through the popstate listener it adds on window when it mounts,
// and it renders the other page at once. Listeners on one target run in the order they were added, so
// the one here is added when this module is first evaluated — providers.tsx imports it, in the root
// layout, before the router mounts — and a cancelled Back never reaches the router.
import { useEffect } from "react";

/** The form on screen with unsaved changes: its question, and its own history entry to go back to. */
let guarded: { question: string; state: unknown; url: string } | null = null;

if (typeof window !== "undefined") {
  window.addEventListener(
    "popstate",
    (e) => {
      if (!guarded || window.confirm(guarded.question)) return;
      e.stopImmediatePropagation();
      // The address has already changed: the form's entry again. Its state is the router's own, so the
      // router's patched pushState passes it through without navigating.
      window.history.pushState(guarded.state, "", guarded.url);
    },
    true,
  );
}

export function useLeaveGuard(active: boolean, question: string): void {
  useEffect(() => {
    if (!active) return;
    const mine = { question, state: window.history.state as unknown, url: window.location.href };
    guarded = mine;
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = "";
    };
    const onClick = (e: MouseEvent) => {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const a = (e.target as Element | null)?.closest?.("a[href]");
      if (!a || a.getAttribute("target") === "_blank" || a.hasAttribute("download")) return;
      if (!window.confirm(question)) {
        e.preventDefault();
        e.stopPropagation();
      }
    };
    window.addEventListener("beforeunload", onBeforeUnload);
    // Capture: before Next's Link handles the click.
    document.addEventListener("click", onClick, true);
    return () => {
      if (guarded === mine) guarded = null;
      window.removeEventListener("beforeunload", onBeforeUnload);
      document.removeEventListener("click", onClick, true);
    };
  }, [active, question]);
}
