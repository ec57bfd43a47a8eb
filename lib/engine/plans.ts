// Builds run plans from a validated definition. Phases are added here as the engine learns them;
// a plan names exactly what each step sends, so it can be reviewed before it runs.
import type { ClusterDefinition } from "../cluster/definition";
import { effectiveHost } from "../cluster/derive";
import { shellCommand, shellScript } from "../ssh/quote";
import { FACTS_SCRIPT } from "./actions/facts";
import { PREFLIGHT_SCRIPT } from "./actions/preflight";
import type { PlannedPhase, RunPlan } from "./plan";

const asSent = (argv: string[]) => shellCommand(argv);

function hostPhases(def: ClusterDefinition): PlannedPhase[] {
  const hosts = def.spec.hosts.map((h) => effectiveHost(def, h));
  return [
    {
      id: "facts",
      title: "Connect, pin host keys, gather facts",
      steps: hosts.map((h) => ({
        key: `facts/${h.name}`,
        phase: "facts",
        action: "facts",
        title: `Facts of ${h.name}`,
        host: h.name,
        files: [],
        commands: [asSent(shellScript(FACTS_SCRIPT, [], "bootdeck-facts"))],
        dependsOn: [],
        timeoutMs: 60_000,
      })),
    },
    {
      id: "preflight",
      title: "Preflight checks (nothing is changed)",
      steps: [
        ...hosts.map((h) => ({
          key: `preflight/${h.name}`,
          phase: "preflight",
          action: "preflight",
          title: `Preflight on ${h.name}`,
          host: h.name,
          files: [],
          commands: [asSent(shellScript(PREFLIGHT_SCRIPT, [], "bootdeck-preflight"))],
          dependsOn: [`facts/${h.name}`],
          timeoutMs: 60_000,
        })),
        {
          key: "preflight/cluster",
          phase: "preflight",
          action: "preflight-cluster",
          title: "Clock skew and unique host names across hosts",
          host: null,
          files: [],
          commands: [],
          dependsOn: hosts.map((h) => `facts/${h.name}`),
          timeoutMs: 10_000,
        },
      ],
    },
  ];
}

/** A "check" run: connect to every host, pin keys, gather facts and run the preflight checks. */
export function buildCheckPlan(def: ClusterDefinition): RunPlan {
  return { runType: "check", phases: hostPhases(def) };
}
