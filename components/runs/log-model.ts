// The log viewer's rules, without React: which lines a step's output has (the fetched full output, the
// live lines after it, the kubelet journal), which of them a search keeps, what is highlighted, how
// many are drawn, and the line that says so.
import { JOURNAL_MARKER, type StepOutput, type StepOutputLine } from "../../lib/engine/schemas";

/** A line as the viewer draws it: its number in the whole output and how it is styled. */
export type LogLine = { n: number; kind: "stdout" | "stderr" | "note" | "journal"; text: string };

/** At most this many lines are drawn (the last ones of what the search keeps); the rest are counted. */
export const RENDER_LIMIT = 2_000;

/**
 * The output's lines: the fetched ones, then the live lines the fetch did not cover (seq above its
 * lastSeq; all of them before the fetch answers), then the journal of a failed step after its marker.
 */
export function mergeOutput(fetched: StepOutput | undefined, live: readonly StepOutputLine[] | undefined): LogLine[] {
  const after = fetched?.lastSeq ?? -1;
  const lines: LogLine[] = [];
  const push = (kind: LogLine["kind"], text: string) => lines.push({ n: lines.length + 1, kind, text });
  for (const l of fetched?.lines ?? []) push(l.stream, l.line);
  for (const l of live ?? []) if (l.seq > after) push(l.stream, l.line);
  if (fetched?.journal.length) {
    push("note", JOURNAL_MARKER);
    for (const j of fetched.journal) push("journal", j);
  }
  return lines;
}

/** The lines that contain `query` (case-insensitive; all lines for an empty query). */
export function filterLines(lines: readonly LogLine[], query: string): LogLine[] {
  const q = query.trim().toLowerCase();
  return q ? lines.filter((l) => l.text.toLowerCase().includes(q)) : [...lines];
}

/** A line's text cut into plain and matching parts, for highlighting every occurrence of `query`. */
export function splitMatches(text: string, query: string): { text: string; match: boolean }[] {
  const q = query.trim().toLowerCase();
  if (!q) return [{ text, match: false }];
  const lower = text.toLowerCase();
  const parts: { text: string; match: boolean }[] = [];
  let from = 0;
  for (let at = lower.indexOf(q); at >= 0; at = lower.indexOf(q, at + q.length)) {
    if (at > from) parts.push({ text: text.slice(from, at), match: false });
    parts.push({ text: text.slice(at, at + q.length), match: true });
    from = at + q.length;
  }
  if (from < text.length) parts.push({ text: text.slice(from), match: false });
  return parts;
}

/** The lines drawn: the last `limit` of those kept, so a following view shows the newest. */
export function drawnLines(kept: readonly LogLine[], limit = RENDER_LIMIT): LogLine[] {
  return kept.length > limit ? kept.slice(kept.length - limit) : [...kept];
}

/** "12 lines", "3 of 120 lines match", "1 of 120 lines matches", "showing the last 2 000 of 15 000 lines", and whether earlier output was dropped. */
export function shownText({ total, kept, drawn, query, truncated }: { total: number; kept: number; drawn: number; query: string; truncated: boolean }): string {
  const n = (x: number) => x.toLocaleString("en-US");
  const lines = (x: number) => `${n(x)} line${x === 1 ? "" : "s"}`;
  let text = query.trim() ? `${n(kept)} of ${lines(total)} ${kept === 1 ? "matches" : "match"}` : lines(total);
  if (drawn < kept) text += `; showing the last ${n(drawn)}`;
  if (truncated) text += "; earlier lines were left out (the viewer loads the last 20,000)";
  return text;
}

/** Whether a scroll box is at its end (a pixel or two of rounding allowed): the viewer follows only then. */
export function isAtBottom({ scrollTop, clientHeight, scrollHeight }: { scrollTop: number; clientHeight: number; scrollHeight: number }): boolean {
  return scrollHeight - scrollTop - clientHeight <= 4;
}
