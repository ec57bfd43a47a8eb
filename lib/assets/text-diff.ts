// A small line diff (LCS) in unified form for comparing two renders' non-sensitive files. Asset
// files are short (a few hundred lines); bigger inputs are reported without a text diff.
const MAX_CELLS = 4_000_000;

export function unifiedDiff(a: string, b: string, context = 3): string | undefined {
  const x = a.split("\n");
  const y = b.split("\n");
  if (x.length * y.length > MAX_CELLS) return undefined;
  const n = x.length;
  const m = y.length;
  // lcs[i][j] = LCS length of x[i..] and y[j..], flattened.
  const lcs = new Uint32Array((n + 1) * (m + 1));
  const at = (i: number, j: number) => lcs[i * (m + 1) + j] ?? 0;
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) lcs[i * (m + 1) + j] = x[i] === y[j] ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1));
  const ops: { t: " " | "-" | "+"; line: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) ops.push({ t: " ", line: x[i++] ?? "" }), j++;
    // Removals before additions, as diff(1) prints them.
    else if (i < n && (j >= m || at(i + 1, j) >= at(i, j + 1))) ops.push({ t: "-", line: x[i++] ?? "" });
    else ops.push({ t: "+", line: y[j++] ?? "" });
  }
  // Keep `context` unchanged lines around each change.
  const keep = ops.map((o) => o.t !== " ");
  const show = ops.map((_, k) => keep.slice(Math.max(0, k - context), k + context + 1).some(Boolean));
  const out: string[] = [];
  let skipped = false;
  ops.forEach((o, k) => {
    if (show[k]) {
      out.push(`${o.t}${o.line}`);
      skipped = false;
    } else if (!skipped) {
      out.push("@@");
      skipped = true;
    }
  });
  return out.join("\n");
}
