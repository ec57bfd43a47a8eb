import "server-only";
// A file encrypted at rest with its own data key: AES-256-GCM over the whole file, streamed (a snapshot
// never has to fit in memory). The data key is sealed with the master key (lib/secrets) and kept with
// the nonce and the tag in the database, so a master-key rotation re-seals 32 bytes per file instead of
// rewriting the files. The plain content's SHA-256 and size are computed on the way in.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, mkdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { PassThrough, Transform, type Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { decryptSecret, encryptSecret, secretContexts } from "../secrets/cipher";

export type SealedFile = {
  /** Absolute path of the encrypted file. */
  path: string;
  keyCipher: string;
  nonce: string;
  tag: string;
  /** Of the plain content. */
  sha256: string;
  size: number;
  storedSize: number;
};

export type SealedWriter = {
  /** Write the plain content here (then call finish). */
  stream: Writable;
  /** Ends the stream, waits for the file, renames it into place. */
  finish(): Promise<SealedFile>;
  /** Stops writing and removes the partial file. */
  abort(): Promise<void>;
};

/** Writes `file` (its directories 0700, the file 0600) through a fresh data key, sealed for backup `backupId`'s row. */
export function openSealedWriter(file: string, backupId: string): SealedWriter {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  const nonce = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  const hash = createHash("sha256");
  let size = 0;
  let storedSize = 0;
  const part = `${file}.part`;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  const stored = new Transform({
    transform(chunk: Buffer, _enc, done) {
      storedSize += chunk.length;
      done(null, chunk);
    },
  });
  const out = createWriteStream(part, { mode: 0o600 });
  const input = new PassThrough();
  const piped = pipeline(input, counter, cipher, stored, out);
  // A failure is reported by finish(); an unobserved rejection must not crash the process meanwhile.
  piped.catch(() => undefined);
  return {
    stream: input,
    async finish() {
      input.end();
      await piped;
      renameSync(part, file);
      return { path: file, keyCipher: encryptSecret(key.toString("base64"), secretContexts.backupKey(backupId)), nonce: nonce.toString("base64"), tag: cipher.getAuthTag().toString("base64"), sha256: hash.digest("hex"), size, storedSize };
    },
    async abort() {
      input.destroy(new Error("aborted"));
      await piped.catch(() => undefined);
      out.destroy();
      await new Promise<void>((resolve) => (out.closed ? resolve() : out.once("close", () => resolve())));
      rmSync(part, { force: true });
    },
  };
}

export type SealedRef = Pick<SealedFile, "path" | "keyCipher" | "nonce" | "tag"> & { backupId: string };

/**
 * The plain content as a stream. GCM authenticates the whole file: a changed byte makes the stream
 * fail at its end, so callers that must not hand out unverified bytes call verifySealedFile first.
 */
export function openSealedReader(ref: SealedRef): Readable {
  const key = Buffer.from(decryptSecret(ref.keyCipher, secretContexts.backupKey(ref.backupId)), "base64");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(ref.nonce, "base64"));
  decipher.setAuthTag(Buffer.from(ref.tag, "base64"));
  const source = createReadStream(ref.path);
  source.on("error", (err) => decipher.destroy(err));
  return source.pipe(decipher);
}

/** Reads the whole file: authenticates it and returns the plain content's SHA-256 and size. */
export async function verifySealedFile(ref: SealedRef): Promise<{ sha256: string; size: number }> {
  const hash = createHash("sha256");
  let size = 0;
  await pipeline(openSealedReader(ref), async function (source: AsyncIterable<Buffer>) {
    for await (const chunk of source) {
      hash.update(chunk);
      size += chunk.length;
    }
  });
  return { sha256: hash.digest("hex"), size };
}
