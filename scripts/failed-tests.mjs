// Prints the failed tests named in a test run's output (vitest's and Playwright's), each with its first
// error line, so the end of a long CI log says which test failed and why, not only which suite.
// Usage: node scripts/failed-tests.mjs LOG [MAX]
import { readFileSync } from "node:fs";

const [file, max = "20"] = process.argv.slice(2);
const lines = readFileSync(file, "utf8").replace(/\x1b\[[0-9;]*m/g, "").split("\n");

// vitest: " FAIL  |project| file > describe > test" then the error; Playwright: "  1) [project] › file:line › test".
const header = /^\s*(?:FAIL\s+(.*\S)|\d+\) (.*\S))\s*$/;
const error = /^\s*(\w*Error\b.*|Expected:.*|Received:.*|expected .*)$/;
const found = new Map();
for (let i = 0; i < lines.length; i++) {
  const m = header.exec(lines[i]);
  if (!m) continue;
  const name = (m[1] ?? m[2]).replace(/\s+/g, " ");
  // vitest also prints "FAIL file" per file while running; the summary's entries carry " > ".
  if (m[1] && !name.includes(" > ")) continue;
  const why = [];
  for (let j = i + 1; j < Math.min(lines.length, i + 12) && why.length < 3; j++) {
    if (header.test(lines[j])) break;
    if (error.test(lines[j])) why.push(lines[j].trim().slice(0, 300));
  }
  if (!found.has(name) || found.get(name).length === 0) found.set(name, why);
}
const entries = [...found].slice(0, Number(max));
for (const [name, why] of entries) {
  console.log(`  ✗ ${name.slice(0, 400)}`);
  for (const w of why) console.log(`      ${w}`);
}
if (found.size > entries.length) console.log(`  … and ${found.size - entries.length} more`);
