// Encrypted snapshot files: what is on disk says nothing of the content, reads back exactly, and a
// changed byte, a wrong tag or another key is refused.
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { openSealedReader, openSealedWriter, verifySealedFile, type SealedFile } from "./sealed-file";

let db: TempDb;
beforeAll(async () => {
  db = await createTempDb();
});
afterAll(() => db.cleanup());

/** Seals as backup "bk_<file name>" would be. */
async function seal(file: string, chunks: Buffer[]): Promise<SealedFile & { backupId: string }> {
  const backupId = `bk_${path.basename(file, ".snapshot")}`;
  const w = openSealedWriter(file, backupId);
  for (const c of chunks) w.stream.write(c);
  return { ...(await w.finish()), backupId };
}

async function readAll(s: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of s) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

describe("sealed files", () => {
  const marker = Buffer.from("etcd-secret-marker-do-not-leak ");
  const plain = Buffer.concat([marker, randomBytes(3 * 1024 * 1024), marker]);

  it("stores the content encrypted (0600) and reads it back byte for byte with its checksum and size", async () => {
    const file = path.join(db.dir, "backups", "cl_x", "bk_1.snapshot");
    const sealed = await seal(file, [plain.subarray(0, 1000), plain.subarray(1000)]);
    expect(sealed.size).toBe(plain.length);
    expect(sealed.storedSize).toBe(plain.length);
    expect(sealed.sha256).toBe((await import("node:crypto")).createHash("sha256").update(plain).digest("hex"));
    const onDisk = readFileSync(file);
    expect(onDisk.includes(marker)).toBe(false);
    expect(onDisk.equals(plain)).toBe(false);
    expect((await import("node:fs")).statSync(file).mode & 0o777).toBe(0o600);
    expect(existsSync(`${file}.part`)).toBe(false);
    expect(sealed.keyCipher).toMatch(/^v2:/);
    expect((await readAll(openSealedReader(sealed))).equals(plain)).toBe(true);
    expect(await verifySealedFile(sealed)).toEqual({ sha256: sealed.sha256, size: plain.length });
  });

  it("refuses a file with one byte changed, a wrong tag, or another file's key (sealed for another backup's row)", async () => {
    const a = await seal(path.join(db.dir, "backups", "cl_x", "a.snapshot"), [plain]);
    const b = await seal(path.join(db.dir, "backups", "cl_x", "b.snapshot"), [plain]);
    await expect(verifySealedFile({ ...a, tag: b.tag })).rejects.toThrow(/authenticate/);
    await expect(verifySealedFile({ ...a, keyCipher: b.keyCipher, nonce: b.nonce })).rejects.toThrow(/authenticate/);
    const bytes = readFileSync(a.path);
    bytes[1234] = (bytes[1234] ?? 0) ^ 1;
    writeFileSync(a.path, bytes);
    await expect(verifySealedFile(a)).rejects.toThrow(/authenticate/);
  });

  it("leaves nothing behind when aborted", async () => {
    const file = path.join(db.dir, "backups", "cl_x", "aborted.snapshot");
    const w = openSealedWriter(file, "bk_aborted");
    w.stream.write(plain.subarray(0, 100));
    await w.abort();
    expect(existsSync(`${file}.part`)).toBe(false);
    expect(existsSync(file)).toBe(false);
  });
});
