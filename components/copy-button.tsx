"use client";
// A small button that copies a value (a command, an address, an id) and says so for a moment.
import { useEffect, useState } from "react";

export function CopyButton({ value, label, testId, className = "" }: { value: string; label: string; testId?: string; className?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const t = setTimeout(() => setState("idle"), 1_500);
    return () => clearTimeout(t);
  }, [state]);
  return (
    <button
      type="button"
      className={`shrink-0 rounded border border-slate-300 bg-white px-1.5 py-0 text-[11px] font-normal text-slate-700 hover:bg-slate-50 ${className}`}
      aria-label={`Copy ${label}`}
      title={`Copy ${label}`}
      data-testid={testId}
      data-state={state}
      onClick={(e) => {
        // Inside a clickable row or summary: copying must not also open or select it.
        e.stopPropagation();
        navigator.clipboard.writeText(value).then(
          () => setState("copied"),
          () => setState("failed"),
        );
      }}
    >
      {state === "copied" ? "Copied" : state === "failed" ? "Copy failed" : "Copy"}
    </button>
  );
}
