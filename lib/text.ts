// Text rules shared by every way data comes in (JSON bodies, cluster.yaml in the API and the CLI) and
// by what errors echo back. Browser-safe.

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** At most this many characters of a value or field path go back in an error message. */
export const maxEchoedChars = 120;

/**
 * Text no field may carry: NUL characters (C strings and SQLite tools cut at them) and lone UTF-16
 * surrogates (not valid Unicode; they cannot be stored or logged faithfully). Returns what was found in
 * keys or values, or undefined when the data is clean.
 */
export function badText(data: unknown, depth = 0): string | undefined {
  if (typeof data === "string") {
    if (data.includes("\u0000")) return "a NUL character";
    if (loneSurrogate.test(data)) return "text that is not valid Unicode (a lone surrogate)";
    return undefined;
  }
  if (depth > 64) return "too deeply nested data";
  if (Array.isArray(data)) {
    for (const v of data) {
      const b = badText(v, depth + 1);
      if (b) return b;
    }
  } else if (data && typeof data === "object") {
    for (const [k, v] of Object.entries(data)) {
      const b = badText(k, depth + 1) ?? badText(v, depth + 1);
      if (b) return b;
    }
  }
  return undefined;
}

/** Cuts echoed text to `maxEchoedChars` and says how much was left out. */
export function clipText(s: string, max = maxEchoedChars): string {
  return s.length > max ? `${s.slice(0, max)}… (${s.length - max} more characters)` : s;
}

/**
 * Text for a terminal: control characters (C0, DEL, C1), and the bidirectional overrides that reorder
 * what is shown, become visible escapes, so a file cannot move the cursor, recolour or fake output.
 */
export function escapeForTerminal(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}
