// A plan as a person reads it, for the review page and the command line alike: each step per host
// (its commands and files on that host), each command in a readable form beside the exact line sent,
// what runs only if needed, each API call with its object as YAML. Browser-safe: plain functions of
// the plan.
import { toYaml } from "../assets/yaml-out";
import { shellCommand } from "../ssh/quote";
import type { PlannedApiCall, PlannedExec, PlannedStep, RunPlan } from "./plan";

/**
 * A command as a reader takes it in: a fixed script (`sh -c SCRIPT NAME ARGS…`) as its name and
 * arguments, with the script apart; anything else as its quoted line. `sent` is the line exactly as
 * the host receives it.
 */
export function readableCommand(argv: readonly string[]): { line: string; script?: string; sent: string } {
  const sent = shellCommand(argv);
  if (argv[0] === "sh" && argv[1] === "-c" && argv.length >= 4) return { line: shellCommand(argv.slice(3)), script: argv[2], sent };
  return { line: sent, sent };
}

export type HostPart = { host: string; exec: PlannedExec[]; files: PlannedStep["files"] };

/** A step's commands and files by the host they go to (the step's own host first; a cluster-wide step's hosts in plan order). */
export function byHost(step: PlannedStep): HostPart[] {
  const parts = new Map<string, HostPart>();
  const part = (host: string) => parts.get(host) ?? parts.set(host, { host, exec: [], files: [] }).get(host)!;
  if (step.host) part(step.host);
  for (const e of step.exec ?? []) part(e.host ?? step.host ?? "").exec.push(e);
  for (const f of step.files) part(f.host ?? step.host ?? "").files.push(f);
  return [...parts.values()].filter((p) => p.exec.length || p.files.length || p.host === step.host);
}

const VERBS: Record<PlannedApiCall["verb"], string> = {
  create: "create if missing",
  apply: "create or replace",
  patch: "patch",
  delete: "delete",
  cordon: "cordon",
  uncordon: "uncordon",
  drain: "drain",
  taint: "add taint",
  rewrite: "write back unchanged",
};

export const verbText = (c: PlannedApiCall) => VERBS[c.verb];

/** "ConfigMap kube-system/coredns". */
export const objectText = (c: PlannedApiCall) => `${c.object.kind} ${c.object.namespace ? `${c.object.namespace}/` : ""}${c.object.name}`;

/** What a call sends, as YAML: the object or patch; a drain's options. Secrets' values are "(secret)" in the plan already. */
export function callYaml(c: PlannedApiCall): string {
  if (c.body) return toYaml(c.body);
  if (c.options) return toYaml(c.options);
  return "";
}

/** Steps without `exec` (plans made before commands were data) keep their command lines as they were shown. */
export const legacyCommands = (step: PlannedStep): string[] => (step.exec ? [] : step.commands);

const indent = (text: string, by: string) =>
  text
    .replace(/\n$/, "")
    .split("\n")
    .map((l) => `${by}${l}`)
    .join("\n");

/** The whole plan as text, nothing cut: what `bootdeck apply` prints before it asks to go on. */
export function planText(plan: RunPlan): string {
  const out: string[] = [];
  plan.phases.forEach((phase, i) => {
    out.push(`${i + 1}. ${phase.title}`);
    for (const s of phase.steps) {
      out.push(`   ${s.host ?? "cluster"}: ${s.title}${s.dependsOn.length ? ` (after ${s.dependsOn.join(", ")})` : ""}`);
      for (const part of byHost(s)) {
        const on = part.host !== s.host ? `on ${part.host}: ` : "";
        for (const f of part.files) out.push(`       ${on}file ${f.path} 0${f.mode.toString(8)} ${f.credential ? `from credential "${f.credential}"` : `${f.sha256} ${f.size} B (${f.asset})`}`);
        for (const e of part.exec) {
          const r = readableCommand(e.argv);
          out.push(`       ${on}run ${e.id}${e.when === "needed" ? " (only if needed)" : ""}: ${r.line}`);
          if (r.script) out.push(indent(r.script, "         | "));
        }
      }
      for (const c of legacyCommands(s)) out.push(`       run ${c}`);
      for (const c of s.api ?? []) {
        out.push(`       api ${verbText(c)} ${objectText(c)}${c.when === "needed" ? " (only if needed)" : ""}${c.asset ? ` from ${c.asset}` : ""}${c.secret ? " (values hidden)" : ""}`);
        if (c.rule) out.push(`         rule: ${c.rule}`);
        const y = callYaml(c);
        if (y) out.push(indent(y, "         "));
      }
      for (const c of s.offsite ?? []) out.push(`       off-site ${c}`);
      for (const c of s.checks ?? []) out.push(`       then ${c}`);
    }
  });
  if (plan.lock) out.push(`Host lock ${plan.lock.file} on ${plan.lock.hosts.join(", ")}; released at the end with: ${shellCommand(plan.lock.release)}`);
  return out.join("\n");
}
