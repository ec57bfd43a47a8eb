import "server-only";
// A step's whole output for the node inspector's log viewer: every line the runner streamed as
// `step.output` events (the step row keeps only the last 200), in order, plus the kubelet journal the
// engine appended to a failed step's stored output. The lines were redacted by the SSH executor when
// recorded; a last pass here hides anything of a secret's shape that got through.
import { getDb } from "../db/client";
import { notFound } from "../http/errors";
import { Redactor } from "../ssh/redact";
import { JOURNAL_MARKER, stepOutputNote, type StepOutput, type StepOutputLine } from "./schemas";

/** At most this many lines (the last ones) in one answer; `truncated` says that earlier ones were left out. */
export const STEP_OUTPUT_MAX_LINES = 20_000;
const EVENT_PAGE = 500;

/**
 * Every output line of one step of a run, oldest first, up to the run's `lastSeq` read first (so live
 * events after `lastSeq` continue exactly where this ends). Attempt boundaries (`step.started` of a
 * later attempt, `step.retrying`) are `note` lines. When the event log has no line for the step (a
 * step recorded without live events), the stored tail stands in.
 */
export async function getStepOutput({ runId, stepKey, maxLines = STEP_OUTPUT_MAX_LINES }: { runId: string; stepKey: string; maxLines?: number }): Promise<StepOutput> {
  const db = getDb();
  const run = await db.run.findUnique({ where: { id: runId }, select: { lastSeq: true } });
  if (!run) throw notFound("Run");
  const step = await db.step.findFirst({ where: { runId, key: stepKey }, select: { id: true, status: true, output: true } });
  if (!step) throw notFound("Step");

  // Newest first, a page at a time, until enough lines: a long step is not read whole.
  // `step.output` events carry the key in their data (no stepId); the LIKE only narrows, the parse decides.
  const pages: StepOutputLine[][] = [];
  let count = 0;
  let more = false;
  let before = run.lastSeq + 1;
  for (;;) {
    const rows = await db.runEvent.findMany({
      where: {
        runId,
        seq: { lt: before },
        OR: [{ type: "step.output", data: { contains: JSON.stringify(stepKey) } }, { stepId: step.id, type: { in: ["step.started", "step.retrying"] } }],
      },
      orderBy: { seq: "desc" },
      take: EVENT_PAGE,
      select: { seq: true, type: true, data: true },
    });
    for (const row of rows) {
      if (count >= maxLines) {
        more = true;
        break;
      }
      const lines = eventLines(row.seq, row.type, JSON.parse(row.data) as Record<string, unknown>, stepKey);
      pages.push(lines);
      count += lines.length;
    }
    if (more || rows.length < EVENT_PAGE) break;
    before = rows.at(-1)!.seq;
  }
  let lines = pages.reverse().flat();
  if (lines.length > maxLines) {
    lines = lines.slice(lines.length - maxLines);
    more = true;
  }

  const [tail, journal] = splitStoredOutput(step.output);
  let source: StepOutput["source"] = "events";
  if (!lines.some((l) => l.stream !== "note") && tail.length > 0) {
    source = "tail";
    lines = tail.map((t) => (t.startsWith("! ") ? { seq: 0, stream: "stderr" as const, line: t.slice(2) } : { seq: 0, stream: "stdout" as const, line: t }));
  }

  // The safety pass: one stream redactor per stream, so a private key printed line by line is hidden whole.
  const redactors = { stdout: new Redactor().forStream(), stderr: new Redactor().forStream(), note: new Redactor().forStream() };
  const journalRedactor = new Redactor().forStream();
  return {
    key: stepKey,
    status: step.status,
    lastSeq: run.lastSeq,
    lines: lines.map((l) => ({ ...l, line: redactors[l.stream](l.line) })),
    truncated: source === "events" && more,
    journal: journal.map((l) => journalRedactor(l)),
    source,
  };
}

/** The lines one event adds to a step's output. */
function eventLines(seq: number, type: string, data: Record<string, unknown>, stepKey: string): StepOutputLine[] {
  if (type === "step.output") {
    if (data.step !== stepKey || !Array.isArray(data.lines)) return [];
    return (data.lines as { stream?: unknown; line?: unknown }[]).map((l) => ({ seq, stream: l.stream === "stderr" ? "stderr" : "stdout", line: String(l.line ?? "") }));
  }
  const note = stepOutputNote(type, data);
  return note === null ? [] : [{ seq, stream: "note", line: note }];
}

/** The stored output (tail, then the journal after its marker) as two lists of lines. */
export function splitStoredOutput(output: string | null): [tail: string[], journal: string[]] {
  if (!output) return [[], []];
  const lines = output.split("\n");
  const at = lines.indexOf(JOURNAL_MARKER);
  return at < 0 ? [lines, []] : [lines.slice(0, at), lines.slice(at + 1)];
}
