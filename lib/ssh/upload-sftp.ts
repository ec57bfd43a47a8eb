import "server-only";
// The SFTP upload path, kept to measure against the tar stream (docs/ssh.md: tar won and is the
// default). Same guarantees: temp names, SHA-256 verified on the host, fsync, atomic rename. SFTP
// cannot go through sudo, so this path only works for root logins.
import type { Client, SFTPWrapper } from "ssh2";
import path from "node:path/posix";
import type { PlannedFile } from "./upload";

/** An empty tar archive: the apply script then only verifies, fsyncs and renames. */
export const EMPTY_TAR = Buffer.alloc(1024);

export function openSftp(client: Client): Promise<SFTPWrapper> {
  return new Promise((resolve, reject) => client.sftp((err, sftp) => (err ? reject(err) : resolve(sftp))));
}

function step<T>(fn: (cb: (err: Error | null | undefined, v?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => fn((err, v) => (err ? reject(err) : resolve(v as T))));
}

/** Writes each file to its temp name with its mode, fsynced, all files in parallel on one session. */
export async function sftpWriteTemps(sftp: SFTPWrapper, files: readonly PlannedFile[], temps: readonly string[]): Promise<void> {
  await Promise.all(
    files.map(async (f, i) => {
      const temp = temps[i] ?? "";
      const handle = await step<Buffer>((cb) => sftp.open(temp, "w", { mode: parseInt(f.mode, 8) }, cb));
      try {
        if (f.content.length > 0) await step<void>((cb) => sftp.write(handle, f.content, 0, f.content.length, 0, cb));
        await step<void>((cb) => sftp.ext_openssh_fsync(handle, (err) => cb(err)));
      } finally {
        await step<void>((cb) => sftp.close(handle, cb));
      }
    }),
  );
}

export function dirsOf(paths: readonly string[]): string[] {
  return [...new Set(paths.map((p) => path.dirname(p)))];
}
