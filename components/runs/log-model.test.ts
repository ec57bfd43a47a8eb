import { describe, expect, test } from "vitest";
import { JOURNAL_MARKER, type StepOutput } from "@/lib/engine/schemas";
import { drawnLines, filterLines, isAtBottom, mergeOutput, shownText, splitMatches, type LogLine } from "./log-model";

const fetched: StepOutput = {
  key: "kubelet/worker-1",
  status: "failed",
  lastSeq: 10,
  lines: [
    { seq: 8, stream: "stdout", line: "daemon-reload" },
    { seq: 10, stream: "stderr", line: "Kubelet failed" },
  ],
  truncated: false,
  journal: ["journal: kubelet exited"],
  source: "events",
};

describe("mergeOutput", () => {
  test("fetched lines, then live lines after the fetch's seq only, then the journal after its marker, numbered", () => {
    const live = [
      { seq: 10, stream: "stderr" as const, line: "Kubelet failed" }, // covered by the fetch
      { seq: 12, stream: "stdout" as const, line: "late line" },
    ];
    expect(mergeOutput(fetched, live)).toEqual([
      { n: 1, kind: "stdout", text: "daemon-reload" },
      { n: 2, kind: "stderr", text: "Kubelet failed" },
      { n: 3, kind: "stdout", text: "late line" },
      { n: 4, kind: "note", text: JOURNAL_MARKER },
      { n: 5, kind: "journal", text: "journal: kubelet exited" },
    ]);
  });

  test("before the fetch answers, every live line", () => {
    expect(mergeOutput(undefined, [{ seq: 3, stream: "stdout", line: "a" }]).map((l) => l.text)).toEqual(["a"]);
    expect(mergeOutput(undefined, undefined)).toEqual([]);
  });
});

const lines: LogLine[] = ["Pulling image", "pulled IMAGE ok", "starting"].map((text, i) => ({ n: i + 1, kind: "stdout", text }));

test("filterLines keeps the lines containing the query, case-insensitive; an empty query keeps all", () => {
  expect(filterLines(lines, "image").map((l) => l.n)).toEqual([1, 2]);
  expect(filterLines(lines, "  ")).toHaveLength(3);
  expect(filterLines(lines, "nothing")).toEqual([]);
});

test("splitMatches cuts a line around every occurrence, keeping the line's own case", () => {
  expect(splitMatches("Image pulled; image ok", "IMAGE")).toEqual([
    { text: "Image", match: true },
    { text: " pulled; ", match: false },
    { text: "image", match: true },
    { text: " ok", match: false },
  ]);
  expect(splitMatches("abc", "")).toEqual([{ text: "abc", match: false }]);
  expect(splitMatches("aaa", "aa")).toEqual([
    { text: "aa", match: true },
    { text: "a", match: false },
  ]);
});

test("drawnLines draws the last lines beyond the limit", () => {
  expect(drawnLines(lines, 2).map((l) => l.n)).toEqual([2, 3]);
  expect(drawnLines(lines, 5)).toHaveLength(3);
});

test("shownText says how many lines there are, match, are drawn, and that earlier ones were left out", () => {
  expect(shownText({ total: 1, kept: 1, drawn: 1, query: "", truncated: false })).toBe("1 line");
  expect(shownText({ total: 120, kept: 3, drawn: 3, query: "err", truncated: false })).toBe("3 of 120 lines match");
  expect(shownText({ total: 1, kept: 1, drawn: 1, query: "err", truncated: false })).toBe("1 of 1 line matches");
  expect(shownText({ total: 15_000, kept: 15_000, drawn: 2_000, query: "", truncated: true })).toBe("15,000 lines; showing the last 2,000; earlier lines were left out (the viewer loads the last 20,000)");
});

test("isAtBottom allows a few pixels of rounding", () => {
  expect(isAtBottom({ scrollTop: 600, clientHeight: 400, scrollHeight: 1000 })).toBe(true);
  expect(isAtBottom({ scrollTop: 597.5, clientHeight: 400, scrollHeight: 1000 })).toBe(true);
  expect(isAtBottom({ scrollTop: 500, clientHeight: 400, scrollHeight: 1000 })).toBe(false);
});
