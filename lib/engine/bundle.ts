import "server-only";
// The support bundle of a run: one .tar.gz with what a support engineer asks for first (the run, its
// plan, every event, every step's output, the hosts' facts, the kubelet journals the engine fetched,
// cluster.yaml), read from the database only: building it never opens a connection to a host.
// Secrets are not in the database in plain text and step output was redacted when recorded; a last
// pass over every file (scrubBundleText) removes private-key blocks and bootstrap tokens anyway.
import { createGzip } from "node:zlib";
import { pack } from "tar-stream";
import { toClusterYaml } from "../cluster/yaml";
import { getExportableDefinition } from "../clusters/repository";
import { getDb } from "../db/client";
import { Redactor, REDACTED } from "../ssh/redact";
import { listRunEvents } from "./events";
import { diagnosticsText, hostDiagnosticsSchema } from "./diagnostics";
import { getRunView, type StepView } from "./queries";
import { JOURNAL_MARKER } from "./schemas";

export type BundleFile = { path: string; content: string };

const EVENT_PAGE = 1000;

/**
 * The bundle's safety pass over one file, with the executor's redactor: whole PEM private-key blocks
 * (to the END line, or to the end of the text when it is cut), bootstrap tokens, bearer tokens,
 * password=…, a kubeconfig's token and client-key-data, and base64 private keys become [REDACTED].
 */
export function scrubBundleText(text: string): string {
  return new Redactor().redact(text);
}

/** Collects the bundle's files (paths relative to its root folder), scrubbed. */
export async function collectSupportBundle({ runId }: { runId: string }): Promise<{ root: string; files: BundleFile[] }> {
  const run = await getRunView({ id: runId });
  const [events, hostRows, definition] = await Promise.all([
    listAllRunEvents(runId),
    getDb().host.findMany({ where: { clusterId: run.clusterId }, orderBy: { position: "asc" }, select: { name: true, facts: true, diagnostics: true } }),
    getExportableDefinition({ id: run.clusterId }),
  ]);
  const root = `bootdeck-${segment(run.clusterName)}-${segment(run.id)}`;
  const files: BundleFile[] = [];
  const add = (path: string, content: string) => files.push({ path, content });

  const { plan, steps, hosts, ...summary } = run;
  add(
    "run.json",
    json({
      ...summary,
      hosts,
      steps: countBy(steps.map((s) => s.status)),
      bundleCreatedAt: new Date().toISOString(),
    }),
  );
  add("plan.json", json(plan));
  add("events.jsonl", events.map((e) => JSON.stringify(e)).join("\n") + (events.length ? "\n" : ""));

  const phaseTitle = new Map(plan.phases.map((p) => [p.id, p.title]));
  for (const [path, cell] of groupSteps(steps)) add(path, stepsText(phaseTitle.get(cell[0]!.phase) ?? cell[0]!.phase, cell));

  const withFacts = hostRows.filter((h) => h.facts);
  for (const h of withFacts) add(`hosts/${segment(h.name)}/facts.json`, json(parseJson(h.facts!)));
  const journals = kubeletJournals(steps);
  for (const [host, text] of journals) add(`hosts/${segment(host)}/kubelet-journal.txt`, text);
  const diagnosed = hostRows.flatMap((h) => {
    const d = h.diagnostics ? hostDiagnosticsSchema.safeParse(parseJson(h.diagnostics)) : undefined;
    return d?.success ? [{ name: h.name, diagnostics: d.data }] : [];
  });
  for (const h of diagnosed) add(`hosts/${segment(h.name)}/diagnostics.txt`, diagnosticsText(h.diagnostics));

  add("cluster.yaml", toClusterYaml(definition));
  add(
    "README.txt",
    readme({
      runId: run.id,
      cluster: run.clusterName,
      events: events.length,
      steps: steps.length,
      factsOf: withFacts.map((h) => h.name),
      noFacts: hostRows.filter((h) => !h.facts).map((h) => h.name),
      journalsOf: [...journals.keys()],
      diagnosedAt: diagnosed.map((h) => `${h.name} ${h.diagnostics.at}`),
    }),
  );
  return { root, files: files.map((f) => ({ path: f.path, content: scrubBundleText(f.content) })) };
}

/** The run's support bundle as a .tar.gz (files 0600 in 0700 folders under `<root>/`). */
export async function runSupportBundle({ runId }: { runId: string }): Promise<{ filename: string; buffer: Buffer }> {
  const { root, files } = await collectSupportBundle({ runId });
  return { filename: `${root}.tar.gz`, buffer: await tarGz(root, files, new Date()) };
}

async function listAllRunEvents(runId: string) {
  const all: Awaited<ReturnType<typeof listRunEvents>> = [];
  for (let after = 0; ; ) {
    const page = await listRunEvents({ runId, afterSeq: after, limit: EVENT_PAGE });
    all.push(...page);
    if (page.length < EVENT_PAGE) return all;
    after = page[page.length - 1]!.seq;
  }
}

/** steps/<phase>/<host or "cluster">.txt → the steps of that grid cell, in run order. */
function groupSteps(steps: readonly StepView[]): Map<string, StepView[]> {
  const cells = new Map<string, StepView[]>();
  for (const s of steps) {
    const path = `steps/${segment(s.phase)}/${segment(s.host ?? "cluster")}.txt`;
    const cell = cells.get(path) ?? [];
    cell.push(s);
    cells.set(path, cell);
  }
  return cells;
}

function stepsText(phaseTitle: string, steps: readonly StepView[]): string {
  const head = `${phaseTitle} on ${steps[0]!.host ?? "the cluster"}\n`;
  return (
    head +
    steps
      .map((s) => {
        const lines = [
          `== ${s.title} ==`,
          `key:       ${s.key}`,
          `status:    ${s.status}`,
          `attempts:  ${s.attempts}`,
          `exit code: ${s.exitCode ?? "-"}`,
          `started:   ${s.startedAt ?? "-"}`,
          `finished:  ${s.finishedAt ?? "-"}`,
          `duration:  ${s.startedAt && s.finishedAt ? `${((Date.parse(s.finishedAt) - Date.parse(s.startedAt)) / 1000).toFixed(1)} s` : "-"}`,
        ];
        if (s.error) lines.push(`error:     ${s.error}`);
        if (s.hint) lines.push(`hint:      ${s.hint}`);
        lines.push("", "--- output ---", s.output ?? "(no output)");
        return lines.join("\n");
      })
      .map((t) => `\n${t}\n`)
      .join("")
  );
}

/** The kubelet journal lines the engine appended to failed steps' output, per host. */
function kubeletJournals(steps: readonly StepView[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const s of steps) {
    if (!s.host || !s.output) continue;
    const at = s.output.indexOf(JOURNAL_MARKER);
    if (at < 0) continue;
    const journal = s.output.slice(at + JOURNAL_MARKER.length).replace(/^\n/, "");
    const part = `== after step ${s.key} (${s.status}, finished ${s.finishedAt ?? "-"}) ==\n${journal}\n`;
    out.set(s.host, (out.has(s.host) ? `${out.get(s.host)}\n` : "") + part);
  }
  return out;
}

function readme(r: { runId: string; cluster: string; events: number; steps: number; factsOf: string[]; noFacts: string[]; journalsOf: string[]; diagnosedAt: string[] }): string {
  const list = (names: string[]) => (names.length ? names.join(", ") : "none");
  return `Bootdeck support bundle: run ${r.runId} of cluster ${r.cluster}

run.json              the run: type, status, who started it, when, its summary, hosts, step counts
plan.json             the plan as confirmed: phases, steps, files and commands per host
events.jsonl          every event of the run (${r.events}), one JSON object a line, in sequence order
steps/<phase>/<host>.txt
                      each step (${r.steps} in all) by phase and host ("cluster" for cluster-wide
                      steps): title, status, attempts, exit code, times, error, hint and output tail
hosts/<host>/facts.json
                      facts the engine gathered (hosts: ${list(r.factsOf)}; none yet: ${list(r.noFacts)})
hosts/<host>/kubelet-journal.txt
                      the kubelet journal lines the engine fetched when a step failed
                      (hosts: ${list(r.journalsOf)}); the same lines end that step's output
hosts/<host>/diagnostics.txt
                      the host's last "Run diagnostics" (kubelet and containerd journals, containers,
                      disk, time, ports, swap, and on masters the API audit log's last lines), taken
                      when it says, which may be before or after this run (${list(r.diagnosedAt)})
cluster.yaml          the cluster definition as exported: credentials by name and fingerprint only

Not included: the pod list. The bundle is built from the database alone and opens no
connection to the cluster; the live pods and nodes are on the cluster page. For a host's
current state, "Run diagnostics" on it on the run page, then download the bundle again.

Secrets: none are included. Private keys, passwords and passphrases are stored encrypted and
never leave the database in plain text; step output and errors were redacted when they were
recorded. A last pass over every file in this bundle replaced anything that looks like a
private-key block, a bootstrap token (abcdef.0123456789abcdef) or a password=/token= value
with ${REDACTED}.
`;
}

async function tarGz(root: string, files: readonly BundleFile[], mtime: Date): Promise<Buffer> {
  const p = pack();
  const dirs = new Set<string>();
  const gz = p.pipe(createGzip());
  const chunks: Buffer[] = [];
  const done = (async () => {
    for await (const c of gz) chunks.push(c as Buffer);
  })();
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    const parts = `${root}/${f.path}`.split("/");
    for (let k = 1; k < parts.length; k++) {
      const d = parts.slice(0, k).join("/");
      if (dirs.has(d)) continue;
      dirs.add(d);
      p.entry({ name: `${d}/`, type: "directory", mode: 0o700, mtime });
    }
    p.entry({ name: `${root}/${f.path}`, mode: 0o600, mtime }, f.content);
  }
  p.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** One safe path segment: host names and phase ids already are; anything else is neutralised. */
function segment(s: string): string {
  const clean = s.replace(/[^A-Za-z0-9._-]/g, "_");
  return clean === "" || /^\.+$/.test(clean) ? "_" : clean;
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2) + "\n";
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { unparsed: text };
  }
}

function countBy(values: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}
