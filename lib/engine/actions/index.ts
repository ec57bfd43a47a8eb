import "server-only";
// What each planned step's `action` does. Every action is safe to run again: it gathers facts,
// compares, and acts only when needed — so a resumed run may repeat a step that was in flight.
import { getDb } from "../../db/client";
import type { EngineHost } from "../targets";
import { bootstrapActions, runPlanned } from "./bootstrap";
import { runtimeActions } from "./runtime";
import { membershipActions } from "./membership";
import { upgradeActions } from "./upgrade";
import { drActions } from "./dr";
import type { HostFacts } from "../../clusters/host-facts";
import { parseFacts } from "./facts";
import { evaluateCluster, evaluateHost, parsePreflight, type Finding } from "./preflight";
import { WARNINGS_NEED_DECISION } from "../../clusters/host-state";
import { needHost, plannedExec, type Action, type ActionContext, type ActionOutcome } from "./types";

export type { Action, ActionContext, ActionOutcome } from "./types";

async function storedFacts(hosts: EngineHost[]): Promise<{ name: string; facts: HostFacts }[]> {
  const rows = await getDb().host.findMany({ where: { id: { in: hosts.map((h) => h.id) } }, select: { id: true, name: true, facts: true } });
  return rows.filter((r) => r.facts).map((r) => ({ name: r.name, facts: JSON.parse(r.facts!) as HostFacts }));
}

/** Runs that change hosts stop on preflight warnings until an admin accepts them (a run event). */
const CHANGING_RUNS = new Set(["bootstrap", "join"]);

async function warningsDecision(ctx: ActionContext): Promise<"accepted" | "needed" | "not-needed"> {
  if (!CHANGING_RUNS.has(ctx.runType)) return "not-needed";
  const accepted = await getDb().runEvent.findFirst({ where: { runId: ctx.runId, type: "run.warnings-accepted" }, select: { seq: true } });
  return accepted ? "accepted" : "needed";
}

function outcomeOf(findings: Finding[], where: string, decision: "accepted" | "needed" | "not-needed"): ActionOutcome {
  const errors = findings.filter((f) => f.severity === "error");
  const warnings = findings.filter((f) => f.severity === "warning");
  if (errors.length)
    return {
      ok: false,
      error: `preflight failed on ${where}: ${errors.map((e) => e.message).join("; ")}`,
      hint: errors.map((e) => e.hint).filter(Boolean).join(" · ") || undefined,
      data: { findings },
    };
  const listed = warnings.map((w) => w.message).join("; ");
  if (warnings.length && decision === "needed")
    return {
      ok: false,
      error: `preflight on ${where}: warnings ${WARNINGS_NEED_DECISION}: ${listed}`,
      hint: `${warnings.map((w) => w.hint).filter(Boolean).join(" · ")} — or, if they are acceptable here, accept the warnings and retry (an admin or lead; bootdeck apply --accept-warnings)`,
      data: { findings },
    };
  return { ok: true, summary: warnings.length ? `${warnings.length} warning${warnings.length === 1 ? "" : "s"}${decision === "accepted" ? " (accepted)" : ""}: ${listed}` : "all checks passed", data: { findings } };
}

export const actions: Record<string, Action> = {
  /** Connect (pinning the host key on first contact) and record the host's facts. */
  async facts(ctx) {
    const host = needHost(ctx);
    const sentAt = Date.now();
    const r = await runPlanned(ctx, plannedExec(ctx, "facts"), { quiet: true });
    const facts = parseFacts(r.stdout.toString("utf8"), sentAt, Date.now());
    await ctx.store((tx) => tx.host.update({ where: { id: host.id }, data: { facts: JSON.stringify(facts) } }));
    return { ok: true, summary: `${facts.os}, kernel ${facts.kernel}, ${facts.arch}, init ${facts.init}, clock ${facts.clockOffsetS >= 0 ? "+" : ""}${facts.clockOffsetS.toFixed(2)} s`, data: { facts } };
  },

  /** Read-only checks on one host. */
  async preflight(ctx) {
    const host = needHost(ctx);
    const r = await runPlanned(ctx, plannedExec(ctx, "preflight"), { quiet: true });
    const target = { role: host.role, caps: ctx.resources.caps, def: ctx.resources.definition };
    return outcomeOf(evaluateHost(parsePreflight(r.stdout.toString("utf8")), target), host.name, await warningsDecision(ctx));
  },

  /** Checks across hosts, from the facts phase 1 stored. */
  async "preflight-cluster"(ctx) {
    return outcomeOf(evaluateCluster(await storedFacts(ctx.hosts)), "the cluster", await warningsDecision(ctx));
  },

  ...bootstrapActions,
  ...runtimeActions,
  ...membershipActions,
  ...upgradeActions,
  ...drActions,
};
