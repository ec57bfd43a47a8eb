// Secret redaction, the one redactor for every text that leaves with secrets possibly in it: what the
// executor records (sink lines, error messages, commands), step output served again, diagnostics, and
// the support bundle's last pass over every file.

export const REDACTED = "[REDACTED]";

const PATTERNS: RegExp[] = [
  // Kubernetes bootstrap tokens: <6>.<16> lower-case alphanumerics, also glued to other text.
  /(?<![a-z0-9])[a-z0-9]{6}\.[a-z0-9]{16}(?![a-z0-9])/g,
  // Authorization headers and bearer tokens.
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  // key=value / key: value forms of common secret names, in text, YAML and JSON: a kubeconfig's
  // `token:` and `client-key-data:` (its client-certificate-data is public and stays).
  /\b((?:password|passwd|passphrase|secret|token|api[_-]?key|client-key-data)["']?\s*[:=]\s*["']?)[^\s"',;]+/gi,
];

// A PEM private key in base64 wherever it stands ("-----BEGIN " encodes to "LS0tLS1CRUdJTi"); the
// replacer keeps certificates, whose encoding starts the same.
const BASE64_PEM = /LS0tLS1CRUdJTi[A-Za-z0-9+/]*={0,2}/g;
const isBase64PrivateKey = (b64: string) => /PRIVATE KEY/.test(Buffer.from(b64.slice(0, 64), "base64").toString("latin1"));

// A whole PEM private-key block in a text: to its END line, or to the end of a cut text; also inside a
// JSON string, where its line breaks are "\n" escapes.
const PEM_BLOCK = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|(?![\s\S]))/g;

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

  /** Redacts a whole text (possibly many lines): each PEM private-key block becomes one [REDACTED]. */
  redact(text: string): string {
    return text
      .replace(PEM_BLOCK, REDACTED)
      .split("\n")
      .map((l) => this.redactLine(l))
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
    return out.replace(BASE64_PEM, (m) => (isBase64PrivateKey(m) ? REDACTED : m));
  }
}
