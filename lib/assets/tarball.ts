// .tar.gz of an asset set, reproducible (fixed mtime, sorted entries), 0600 files in 0700 dirs.
// Sensitive files (private keys, tokens, kubeconfigs holding them) are left out unless asked for.
import { createGzip } from "node:zlib";
import { pack } from "tar-stream";
import type { Readable } from "node:stream";

export type TarAsset = { path: string; content: string; mode: number; sensitive: boolean };

export function assetTarball(assets: readonly TarAsset[], opts: { root: string; mtime: Date; includeSensitive: boolean }): Readable {
  const p = pack();
  const dirs = new Set<string>();
  const entries = [...assets].filter((a) => opts.includeSensitive || !a.sensitive).sort((a, b) => (a.path < b.path ? -1 : 1));
  for (const a of entries) {
    const parts = `${opts.root}/${a.path}`.split("/");
    for (let k = 1; k < parts.length; k++) {
      const d = parts.slice(0, k).join("/");
      if (!dirs.has(d)) {
        dirs.add(d);
        p.entry({ name: `${d}/`, type: "directory", mode: 0o700, mtime: opts.mtime });
      }
    }
    p.entry({ name: `${opts.root}/${a.path}`, mode: a.mode, mtime: opts.mtime }, a.content);
  }
  p.finalize();
  return p.pipe(createGzip());
}

export async function assetTarballBuffer(assets: readonly TarAsset[], opts: { root: string; mtime: Date; includeSensitive: boolean }): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of assetTarball(assets, opts)) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
