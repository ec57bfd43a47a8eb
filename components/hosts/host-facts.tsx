"use client";
// What phase 1 found on a host, with when: facts are a snapshot, and an old one says so.
import type { HostFacts } from "@/lib/clusters/host-facts";
import { Time } from "../time";
import { relativeTime } from "../time-format";

export function HostFactsLine({ facts: f }: { facts: HostFacts | null }) {
  if (!f) return <p className="text-slate-600" data-testid="host-facts">No facts gathered yet (the first phase of a check or bootstrap records them).</p>;
  return (
    <p className="text-slate-700" data-testid="host-facts">
      {f.os} · kernel {f.kernel} · {f.arch} · {f.cpus} CPUs · {Math.round(f.memKb / 1024)} MiB · init {f.init} · clock {f.clockOffsetS >= 0 ? "+" : ""}
      {f.clockOffsetS.toFixed(2)} s · {f.addresses.map((a) => `${a.iface} ${a.cidr}`).join(", ")}{" "}
      <span className="text-slate-600" data-testid="host-facts-as-of">
        — as of <Time iso={f.gatheredAt} /> ({relativeTime(f.gatheredAt, Date.now())})
      </span>
    </p>
  );
}
