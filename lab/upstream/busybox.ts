// busybox for the conformance suite's images, built as the official busybox image's glibc variant is
// (docker-library/busybox): the release's source, `make defconfig` with that image's few changes,
// compiled on Debian 13 against its glibc. Debian's own busybox package is not the same program: it
// reverts upstream's change that passes environment variables whose names are not shell identifiers
// (`data-1`) to children, and the suite's Secret and ConfigMap specs read such variables through
// `sh -c env`. Its shell looks programs up in PATH before its own applets (defconfig leaves
// FEATURE_PREFER_APPLETS off), so agnhost's `nc` is the netcat its image adds. Test bed only.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { ensureTestImageRoot } from "../base-image";
import { CACHE_DIR, MIRROR } from "../config";
import { type Log, withBuildLock } from "./build";

/**
 * The release, as Debian's archive carries it (busybox.net is not reachable from here): the
 * `.orig` tarball is the release tarball, whose SHA-256 the official image's builder pins too. Debian's
 * packaging tarball is only read for two of its patches, the build fixes the official builder applies
 * as well: CBQ gone from the kernel's headers (the `tc` applet), and a missing guard around x86's SHA
 * instructions.
 */
const RELEASE = {
  version: "1.37.0",
  source: { file: "busybox_1.37.0.orig.tar.bz2", sha256: "3311dff32e746499f4df0d5df04d7eb396382d7e108bb9250e7b519b837043a4" },
  debian: { file: "busybox_1.37.0-6.debian.tar.xz", sha256: "10b2cd64b41c26ae134e1cd6135b68575bbe79356c20985f35e32f32a1746c34" },
  patches: ["busybox-1.36.1-no-cbq.patch", "libbb-sha-add-missing-sha-NI-guard.patch"],
};

/** The official builder's changes to defconfig. */
const CONFIG_SET = ["CONFIG_AR=y", "CONFIG_FEATURE_AR_CREATE=y", "CONFIG_FEATURE_AR_LONG_FILENAMES=y", "CONFIG_LAST_SUPPORTED_WCHAR=0", "CONFIG_INOTIFYD=y"];
const CONFIG_UNSET = ["CONFIG_FEATURE_SYNC_FANCY"];

const BUILD_PACKAGES = ["gcc", "make", "bzip2", "xz-utils", "patch", "libc6-dev"];
/** Where the build root keeps the result: a path no Debian package uses. */
const BINARY = "/usr/local/bin/busybox";
const STAMP = "/usr/local/share/bootdeck-busybox.json";

/** A busybox built in `root` (a Debian 13 root, which also holds the libraries it loads), at `binary`. */
export type BusyboxBuild = { root: string; binary: string; version: string };

const stampOf = () => JSON.stringify({ ...RELEASE, set: CONFIG_SET, unset: CONFIG_UNSET });

export async function ensureBusybox(log: Log): Promise<BusyboxBuild> {
  const root = await ensureTestImageRoot(BUILD_PACKAGES, log);
  const built: BusyboxBuild = { root, binary: BINARY, version: RELEASE.version };
  const stamp = path.join(root, STAMP);
  const done = () => fs.existsSync(stamp) && fs.readFileSync(stamp, "utf8") === stampOf() && fs.existsSync(path.join(root, BINARY));
  if (done()) return built;
  // Another process may be building in the same root: wait for it, then look again.
  return withBuildLock(`${root}-busybox`, async () => {
    if (!done()) buildBusybox(root, stamp, log);
    return built;
  });
}

function buildBusybox(root: string, stamp: string, log: Log): void {
  const started = Date.now();
  log(`building busybox ${RELEASE.version} from its release (defconfig, as the official image)…`);
  const src = path.join(root, "usr/src");
  fs.mkdirSync(src, { recursive: true });
  for (const f of [RELEASE.source, RELEASE.debian]) fetchChecked(f, path.join(src, f.file));
  const script = [
    "set -eu",
    "cd /usr/src",
    `rm -rf busybox-${RELEASE.version} debian`,
    `tar -xjf ${RELEASE.source.file}`,
    `tar -xJf ${RELEASE.debian.file}`,
    `cd busybox-${RELEASE.version}`,
    ...RELEASE.patches.map((p) => `patch -p1 --quiet < ../debian/patches/${p}`),
    "make defconfig >/dev/null",
    ...CONFIG_UNSET.map((c) => `sed -i 's!^${c}=.*$!# ${c} is not set!' .config`),
    ...CONFIG_SET.map((cv) => {
      const c = cv.split("=")[0]!;
      return `sed -i -e 's!^${c}=.*$!${cv}!' -e 's!^# ${c} is not set$!${cv}!' .config; grep -qx '${cv}' .config || echo '${cv}' >> .config`;
    }),
    "yes '' | make oldconfig >/dev/null",
    ...CONFIG_SET.map((cv) => `grep -qx '${cv}' .config`),
    // Not `! grep`: set -e ignores a negated command's failure.
    ...CONFIG_UNSET.map((c) => `if grep -q '^${c}=' .config; then echo '${c} is still set' >&2; exit 1; fi`),
    "make -j\"$(nproc)\" busybox >/dev/null",
    `install -D -m 0755 busybox ${BINARY}`,
  ].join("\n");
  const r = spawnSync("chroot", [root, "/bin/sh", "-c", script], { encoding: "utf8", maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`building busybox ${RELEASE.version} failed (exit ${r.status}): ${(r.stderr || r.stdout).trim().slice(-1500)}`);
  fs.mkdirSync(path.dirname(stamp), { recursive: true });
  fs.writeFileSync(stamp, stampOf());
  log(`busybox ${RELEASE.version} built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Downloads a file of Debian's busybox source package (once, into the lab cache) and checks its SHA-256. */
function fetchChecked(f: { file: string; sha256: string }, dest: string): void {
  const cached = path.join(CACHE_DIR, "sources", f.file);
  if (!fs.existsSync(cached)) {
    fs.mkdirSync(path.dirname(cached), { recursive: true });
    const url = `${MIRROR}/pool/main/b/busybox/${f.file}`;
    const r = spawnSync("curl", ["-fsSL", "--retry", "3", "-o", `${cached}.partial`, url], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`downloading ${url} failed: ${r.stderr.trim()}`);
    fs.renameSync(`${cached}.partial`, cached);
  }
  const sha = createHash("sha256").update(fs.readFileSync(cached)).digest("hex");
  if (sha !== f.sha256) {
    fs.rmSync(cached, { force: true });
    throw new Error(`${f.file}: SHA-256 ${sha}, expected ${f.sha256}`);
  }
  fs.copyFileSync(cached, dest);
}
