// Secret redaction for everything that leaves the executor as text (sink lines, error messages).

export const REDACTED = "[REDACTED]";

const PATTERNS: RegExp[] = [
  // Kubernetes bootstrap tokens: <6>.<16> lower-case alphanumerics.
  /\b[a-z0-9]{6}\.[a-z0-9]{16}\b/g,
  // Authorization headers and bearer tokens.
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  // key=value / key: value forms of common secret names.
  /\b((?:password|passwd|passphrase|secret|token|api[_-]?key)["']?\s*[:=]\s*["']?)[^\s"',;]+/gi,
];

const PEM_BEGIN = /-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY)-----/;
const PEM_END = /-----END ((?:[A-Z0-9]+ )*PRIVATE KEY)-----/;

/**
 * Holds the secret strings registered for a run (passwords, passphrases, token values) plus the built-in
 * patterns. `forStream()` returns a line redactor that also remembers when it is inside a private-key
 * block, so a key printed line by line is hidden whole.
 */
export class Redactor {
  private secrets = new Set<string>();

  /** Registers literal secrets; values shorter than 4 characters would redact noise, so they are ignored. */
  add(...values: (string | undefined)[]): this {
    for (const v of values) {
      if (v && v.length >= 4) {
        this.secrets.add(v);
        // Also each line of a multi-line secret (a key file read as one string).
        for (const line of v.split("\n")) if (line.trim().length >= 16) this.secrets.add(line.trim());
      }
    }
    return this;
  }

  /** Redacts a whole text (possibly many lines), including complete PEM private-key blocks. */
  redact(text: string): string {
    const lr = this.forStream();
    return text
      .split("\n")
      .map((l) => lr(l))
      .join("\n");
  }

  forStream(): (line: string) => string {
    let inKey = false;
    return (line: string) => {
      if (inKey) {
        if (PEM_END.test(line)) inKey = false;
        return REDACTED;
      }
      const begin = PEM_BEGIN.exec(line);
      if (begin) {
        inKey = !PEM_END.test(line.slice(begin.index + begin[0].length));
        return line.slice(0, begin.index) + `${REDACTED} (${begin[1]})`;
      }
      return this.redactLine(line);
    };
  }

  private redactLine(line: string): string {
    let out = line;
    // Longest first, so a secret containing another is replaced whole.
    for (const s of [...this.secrets].sort((a, b) => b.length - a.length)) {
      if (out.includes(s)) out = out.split(s).join(REDACTED);
    }
    for (const re of PATTERNS) {
      out = out.replace(re, (match, prefix: unknown) =>
        typeof prefix === "string" && /[:=]\s*["']?$/.test(prefix) ? `${prefix}${REDACTED}` : REDACTED,
      );
    }
    return out;
  }
}
