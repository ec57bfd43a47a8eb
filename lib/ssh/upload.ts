// File uploads as one probe plus one tar stream per host: the probe returns every remote checksum in a
// single exec, then only the files that differ travel, to temporary names, and are renamed atomically.
// SFTP was measured against this and lost (docs/ssh.md).
import { createHash, randomBytes } from "node:crypto";
import path from "node:path/posix";
import { pack } from "tar-stream";
import { QuoteError } from "./quote";
import { UPLOAD_APPLY, UPLOAD_PROBE } from "./scripts";

export type FileSpec = {
  /** Absolute path on the host. */
  path: string;
  content: Buffer | string;
  /** Permission bits, default 0o600 (assets are secrets until proven otherwise). */
  mode?: number;
  /** "user:group" names, default "root:root". */
  owner?: string;
};

export type RemoteFileState = { exists: false } | { exists: true; mode: string; owner: string; sha256: string };

export type PlannedFile = {
  path: string;
  content: Buffer;
  sha256: string;
  mode: string;
  owner: string;
};

export function normaliseFiles(files: readonly FileSpec[]): PlannedFile[] {
  const seen = new Set<string>();
  return files.map((f) => {
    if (!path.isAbsolute(f.path)) throw new QuoteError(`upload target must be an absolute path, got "${f.path}"`);
    if (f.path.includes("\0")) throw new QuoteError("upload target path contains a NUL byte");
    const p = path.normalize(f.path);
    if (p.endsWith("/")) throw new QuoteError(`upload target must name a file, got "${f.path}"`);
    if (seen.has(p)) throw new QuoteError(`upload lists "${p}" twice`);
    seen.add(p);
    const owner = f.owner ?? "root:root";
    if (!/^[A-Za-z0-9_.][A-Za-z0-9_.-]*:[A-Za-z0-9_.][A-Za-z0-9_.-]*$/.test(owner)) {
      throw new QuoteError(`owner must be "user:group" names, got "${owner}"`);
    }
    const content = typeof f.content === "string" ? Buffer.from(f.content) : f.content;
    return {
      path: p,
      content,
      sha256: createHash("sha256").update(content).digest("hex"),
      mode: (f.mode ?? 0o600).toString(8),
      owner,
    };
  });
}

export function probeArgs(files: readonly PlannedFile[]): string[] {
  return ["sh", "-c", UPLOAD_PROBE, "bootdeck-probe", ...files.map((f) => f.path)];
}

/** Parses the probe's output: a y/n line, stat lines for the existing files, then NUL-terminated sums. */
export function parseProbe(out: Buffer, count: number): RemoteFileState[] {
  const text = out.toString("utf8");
  const nl = text.indexOf("\n");
  const flags = text.slice(0, nl);
  if (nl < 0 || flags.length !== count || /[^yn]/.test(flags)) {
    throw new Error(`unexpected upload probe output: ${JSON.stringify(text.slice(0, 200))}`);
  }
  const existing = [...flags].filter((c) => c === "y").length;
  let rest = text.slice(nl + 1);
  const stats: string[] = [];
  for (let i = 0; i < existing; i++) {
    const e = rest.indexOf("\n");
    stats.push(rest.slice(0, e));
    rest = rest.slice(e + 1);
  }
  const sums = rest.split("\0").filter((r) => r.length > 0).map((r) => r.replace(/^\\/, "").slice(0, 64));
  if (sums.length !== existing || sums.some((s) => !/^[0-9a-f]{64}$/.test(s))) {
    throw new Error(`unexpected upload probe checksums: ${JSON.stringify(rest.slice(0, 200))}`);
  }
  let k = 0;
  return [...flags].map((c) => {
    if (c === "n") return { exists: false };
    const [mode = "", owner = ""] = (stats[k] ?? "").split(" ");
    const sha256 = sums[k] ?? "";
    k++;
    return { exists: true, mode, owner, sha256 };
  });
}

export function needsWrite(f: PlannedFile, remote: RemoteFileState): boolean {
  return !remote.exists || remote.sha256 !== f.sha256 || remote.mode !== f.mode || remote.owner !== f.owner;
}

/** Staging directory name inside each target directory (same filesystem: rename is atomic). */
export const stageName = (nonce: string) => `.bootdeck-upload-${nonce}`;

export function tempPathFor(target: string, nonce: string): string {
  return path.join(path.dirname(target), stageName(nonce), path.basename(target));
}

// sha256sum -c format; names holding a backslash or newline are escaped and the line starts with "\".
export function checksumLine(sha256: string, file: string): string {
  if (/[\\\n]/.test(file)) return `\\${sha256}  ${file.replaceAll("\\", "\\\\").replaceAll("\n", "\\n")}`;
  return `${sha256}  ${file}`;
}

export type ApplyPlan = { argv: string[]; temps: string[]; tar: () => Promise<Buffer> };

export function planApply(files: readonly PlannedFile[], nonce = randomBytes(6).toString("hex")): ApplyPlan {
  const temps = files.map((f) => tempPathFor(f.path, nonce));
  const dirs = [...new Set(files.map((f) => path.dirname(f.path)))];
  const sums = files.map((f, i) => checksumLine(f.sha256, temps[i] ?? "")).join("\n") + "\n";
  const want = files.map((f) => `${f.mode} ${f.owner}`).join("\n");
  const argv = [
    "sh",
    "-c",
    UPLOAD_APPLY,
    "bootdeck-upload",
    sums,
    want,
    stageName(nonce),
    String(dirs.length),
    String(files.length),
    ...dirs,
    ...temps,
  ];
  const tar = () => buildTar(files, temps);
  return { argv, temps, tar };
}

function buildTar(files: readonly PlannedFile[], temps: readonly string[]): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    p.on("data", (c: unknown) => chunks.push(c as Buffer));
    p.on("end", () => resolve(Buffer.concat(chunks)));
    p.on("error", reject);
    files.forEach((f, i) => {
      const [uname, gname] = f.owner.split(":");
      p.entry(
        {
          name: (temps[i] ?? "").replace(/^\/+/, ""),
          size: f.content.length,
          mode: parseInt(f.mode, 8),
          uname,
          gname,
          uid: 0,
          gid: 0,
          mtime: new Date(),
          type: "file",
        },
        f.content,
      );
    });
    p.finalize();
  });
}
