import "server-only";
// Node diagnostics for the run page's step panel: one fixed, read-only script (golden-tested) on one
// host whose key is already pinned, printing "== title ==" sections. Nothing on the host changes;
// the output is redacted before it leaves this module.
import { z } from "zod";
import { AUDIT_LOG } from "../assets/api-policy";
import { limits, type ClusterDefinition } from "../cluster/definition";
import { isDns1123Label } from "../cluster/net-syntax";
import { clusterIdParams } from "../clusters/schemas";
import { getDb } from "../db/client";
import { AppError, conflict, notFound } from "../http/errors";
import { Executor, isSshError, shellScript } from "../ssh";
import { loadEngineHosts } from "./targets";

/** Route params: the cluster's id and a host name by the definition's rules (a DNS-1123 label). */
export const hostDiagnosticsParams = z.strictObject({
  id: clusterIdParams.shape.id,
  host: z.string().max(limits.name).refine(isDns1123Label),
});

/** The sections the script prints, in order. */
export const DIAGNOSTICS_SECTIONS = ["kubelet journal", "kubelet unit", "containerd journal", "containers", "disk", "time", "ports", "swap", "API audit log"] as const;

/** Diagnostics keep the audit log's last lines: who did what just before the trouble (one line per request). */
const AUDIT_TAIL_LINES = 40;

/**
 * Read-only; no arguments. Each command runs through "probe": a missing tool prints a note, a
 * failing one its exit code, and each is cut off after 4 s so the whole script stays within 30 s.
 */
export const DIAGNOSTICS_SCRIPT = `probe() {
  if ! command -v "$1" >/dev/null 2>&1; then echo "($1 is not installed on this host)"; return 0; fi
  if command -v timeout >/dev/null 2>&1; then timeout 4 "$@" 2>&1; else "$@" 2>&1; fi
  rc=$?
  [ "$rc" -eq 0 ] || echo "($1 exited with code $rc)"
  return 0
}
echo "== kubelet journal =="
probe journalctl -u kubelet -n 200 --no-pager
echo "== kubelet unit =="
probe systemctl status kubelet --no-pager
echo "== containerd journal =="
probe journalctl -u containerd -n 100 --no-pager
echo "== containers =="
probe crictl ps -a
echo "== disk =="
probe df -h
echo "== time =="
probe date -u
probe timedatectl
echo "== ports =="
probe ss -ltnp
echo "== swap =="
if [ -r /proc/swaps ]; then cat /proc/swaps; else echo "(no /proc/swaps on this host)"; fi
echo "== API audit log =="
if [ -r ${AUDIT_LOG} ]; then tail -n ${AUDIT_TAIL_LINES} ${AUDIT_LOG}; else echo "(no ${AUDIT_LOG} on this host: the API servers on masters write it)"; fi
exit 0`;

/**
 * The script's output → its sections. Only the next expected heading starts a section, so a command
 * printing some other "== … ==" line cannot add or reorder sections (display only: nothing acts on
 * the text). Text before the first heading (sudo warnings) is dropped; a section the output never
 * reached says so.
 */
export function parseDiagnostics(output: string): DiagnosticsSection[] {
  const sections: DiagnosticsSection[] = [];
  let next = 0;
  let current: string[] | undefined;
  const close = () => {
    if (current) sections[sections.length - 1]!.text = current.join("\n").replace(/\n+$/, "");
  };
  for (const line of output.split("\n")) {
    if (next < DIAGNOSTICS_SECTIONS.length && line === `== ${DIAGNOSTICS_SECTIONS[next]} ==`) {
      close();
      sections.push({ title: DIAGNOSTICS_SECTIONS[next]!, text: "" });
      current = [];
      next++;
    } else current?.push(line);
  }
  close();
  for (; next < DIAGNOSTICS_SECTIONS.length; next++) sections.push({ title: DIAGNOSTICS_SECTIONS[next]!, text: "(no output: the script stopped before this section, probably at the 30 s limit)" });
  return sections;
}

export const hostDiagnosticsSchema = z.object({
  host: z.string(),
  at: z.string(),
  durationMs: z.number(),
  sections: z.array(z.object({ title: z.string(), text: z.string() })),
});
export type HostDiagnostics = z.infer<typeof hostDiagnosticsSchema>;
export type DiagnosticsSection = HostDiagnostics["sections"][number];

/** Diagnostics as a text file: each section under its heading, as the script printed it. */
export function diagnosticsText(d: HostDiagnostics): string {
  return [`Diagnostics of ${d.host}, taken ${d.at} (${(d.durationMs / 1000).toFixed(1)} s)`, ...d.sections.map((s) => `\n== ${s.title} ==\n${s.text}`)].join("\n") + "\n";
}

const TIMEOUT_MS = 30_000;

export async function runHostDiagnostics({ clusterId, host }: { clusterId: string; host: string }): Promise<HostDiagnostics> {
  if (!isDns1123Label(host)) throw notFound("Host");
  const db = getDb();
  const cluster = await db.cluster.findUnique({ where: { id: clusterId }, select: { definition: true, hosts: { where: { name: host }, select: { hostKeyFingerprint: true } } } });
  if (!cluster) throw notFound("Cluster");
  const row = cluster.hosts[0];
  if (!row) throw notFound("Host");
  if (!row.hostKeyFingerprint) throw conflict(`The host key of ${host} is not pinned yet: run a check of the cluster first`);
  const definition = JSON.parse(cluster.definition) as ClusterDefinition;
  const executor = new Executor({ connectTimeoutMs: 10_000, retry: { attempts: 2 } });
  try {
    const hosts = await loadEngineHosts({
      clusterId,
      definition,
      purpose: "diagnostics",
      onPinned: async (h) => {
        throw new Error(`the host key of ${h.name} is not pinned yet: run a check of the cluster first`);
      },
    });
    const target = hosts.find((h) => h.name === host)?.target;
    if (!target) throw notFound("Host");
    const at = new Date();
    const r = await executor.run(target, shellScript(DIAGNOSTICS_SCRIPT, [], "bootdeck-diagnostics"), { step: "diagnostics", timeoutMs: TIMEOUT_MS, quiet: true, allowFailure: true });
    const text = executor.redactor.redact(r.stdout.toString("utf8"));
    const result: HostDiagnostics = { host, at: at.toISOString(), durationMs: r.durationMs, sections: parseDiagnostics(text) };
    // The host's last diagnostics go into the support bundles of its cluster's runs (lib/engine/bundle.ts).
    await db.host.update({ where: { clusterId_name: { clusterId, name: host } }, data: { diagnostics: JSON.stringify(result) } });
    return result;
  } catch (err) {
    if (isSshError(err)) throw new AppError(502, "ssh", executor.redactor.redact(err.message));
    throw err;
  } finally {
    await executor.close();
  }
}
