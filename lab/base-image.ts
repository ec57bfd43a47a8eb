// The hosts' shared base root filesystem: debootstrap minbase + lab configuration, cached by a hash of
// the package list (debootstrap output) and of the configuration (final image), so most runs reuse it.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { basePackages, CACHE_DIR, LAB_PASSWORD, MIRROR, USERS, type Suite } from "./config";
import { run, runStreaming } from "./sh";

/**
 * What runs before systemd in each host (then execs it as PID 1), as kind's node entrypoint does: it
 * fixes only what a container cannot have from systemd-nspawn. nspawn mounts the cgroup v1 controller
 * hierarchies read-only (it expects a unified host); a machine's systemd manages them read-write, so
 * they are remounted so before systemd reads them. The kubelet's OOM watcher reads /dev/kmsg, which nspawn
 * does not create.
 */
export const HOST_ENTRY = `#!/bin/sh
# bootdeck lab host entry: PID 1 until it execs systemd (see lab/base-image.ts)
set -e
for m in $(awk '$3 == "cgroup" {print $2}' /proc/self/mounts); do mount -o remount,rw,bind "$m"; done
mount -o remount,rw /sys/fs/cgroup
[ -e /dev/kmsg ] || mknod -m 600 /dev/kmsg c 1 11
exec /lib/systemd/systemd "$@"
`;

/**
 * A boot without systemd (\`lab reboot HOST --without-systemd\`), as a minimal container host has: its
 * network from its own configuration, then sshd. nspawn's stub init is PID 1 (\`--as-pid2\`) and reaps.
 */
export const HOST_ENTRY_WITHOUT_SYSTEMD = `#!/bin/sh
# bootdeck lab host entry without systemd (see lab/base-image.ts)
mkdir -p /run/network /run/sshd
ifup -a
exec /usr/sbin/sshd -D -e
`;

const SSHD_CONF = `# bootdeck lab: test hosts only, reachable only on the lab bridge
PermitRootLogin yes
PasswordAuthentication yes
UsePAM no
UseDNS no
MaxStartups 200:30:400
HostKey /etc/ssh/ssh_host_ed25519_key
`;

const CONFIGURE = `set -eu
useradd -m -s /bin/bash ${USERS.sudo}
useradd -m -s /bin/bash ${USERS.sudoWithPassword}
printf '%s\\n' 'root:${LAB_PASSWORD}' '${USERS.sudo}:${LAB_PASSWORD}' '${USERS.sudoWithPassword}:${LAB_PASSWORD}' | chpasswd
echo '${USERS.sudo} ALL=(ALL) NOPASSWD:ALL' > /etc/sudoers.d/${USERS.sudo}
echo '${USERS.sudoWithPassword} ALL=(ALL) ALL' > /etc/sudoers.d/${USERS.sudoWithPassword}
chmod 0440 /etc/sudoers.d/${USERS.sudo} /etc/sudoers.d/${USERS.sudoWithPassword}
rm -f /etc/ssh/ssh_host_*
# A server's boot: sshd and ifupdown's networking come up with systemd; no console login, no network
# wait beyond ifupdown's own. Persistent journal, so \`journalctl -b -1\` shows the boot before a reboot.
systemctl enable ssh.service networking.service >/dev/null
systemctl mask console-getty.service getty@tty1.service systemd-networkd-wait-online.service >/dev/null
# A lab host shares this machine's kernel and cannot load modules of its own (Debian 13's kmod refuses
# to start in a container); the modules Kubernetes needs are loaded on the machine.
systemctl mask systemd-modules-load.service >/dev/null
mkdir -p /var/log/journal
for u in root ${USERS.sudo} ${USERS.sudoWithPassword}; do h=$(getent passwd "$u" | cut -d: -f6); mkdir -p "$h/.ssh"; chmod 700 "$h/.ssh"; chown "$u:$u" "$h/.ssh"; done
apt-get clean
rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
`;

const hash = (...parts: string[]) => createHash("sha256").update(parts.join("\n")).digest("hex").slice(0, 12);

/** A host image: the Debian release, and whether it lacks what a provisioned server has (config.ts). */
export type ImageChoice = { suite: Suite; bare: boolean };
export const DEFAULT_IMAGE: ImageChoice = { suite: "bookworm", bare: false };

export function baseImageKeys(choice: ImageChoice = DEFAULT_IMAGE) {
  const packages = basePackages(choice.bare);
  const pkgKey = hash(choice.suite, MIRROR, ...packages);
  const imageKey = hash(pkgKey, CONFIGURE, SSHD_CONF, HOST_ENTRY, HOST_ENTRY_WITHOUT_SYSTEMD);
  return {
    packages,
    debootstrapDir: path.join(CACHE_DIR, `debootstrap-${pkgKey}`),
    imageDir: path.join(CACHE_DIR, `rootfs-${imageKey}`),
  };
}

const complete = (dir: string) => fs.existsSync(path.join(dir, ".bootdeck-complete"));

/** A minbase Debian root with these packages, made once by debootstrap from Debian's archive (minutes). */
export async function ensureDebootstrap(dir: string, suite: Suite, packages: readonly string[], what: string, log: (line: string) => void): Promise<void> {
  if (complete(dir)) return;
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const tmp = `${dir}.partial`;
  fs.rmSync(tmp, { recursive: true, force: true });
  log(`building ${what} with debootstrap (${suite}, minbase, ${packages.length} packages); takes a few minutes the first time…`);
  let n = 0;
  await runStreaming("debootstrap", ["--variant=minbase", `--include=${packages.join(",")}`, suite, tmp, MIRROR], (line) => {
    // Print every line of the important phases, a heartbeat for the long package lists.
    if (/^I: (Retrieving Release|Validating Packages|Resolving|Found|Checking|Extracting base|Installing core|Configuring|Base system)/.test(line) || ++n % 25 === 0) {
      log(`  debootstrap: ${line.replace(/^I: /, "")}`);
    }
  });
  fs.writeFileSync(path.join(tmp, ".bootdeck-complete"), new Date().toISOString());
  fs.renameSync(tmp, dir);
}

/**
 * The Debian root the conformance suite's images take their programs from (Debian 13: its busybox is
 * 1.37.0, the release the suite's busybox image is of). Keyed by its package list, like the hosts' root.
 */
export async function ensureTestImageRoot(packages: readonly string[], log: (line: string) => void): Promise<string> {
  const dir = path.join(CACHE_DIR, `debootstrap-test-images-${hash("trixie", MIRROR, ...packages)}`);
  await ensureDebootstrap(dir, "trixie", packages, "the test images' Debian root", log);
  return dir;
}

/** Returns the cached image directory, building it first if needed (minutes the first time). */
export async function ensureBaseImage(log: (line: string) => void, choice: ImageChoice = DEFAULT_IMAGE): Promise<string> {
  const { packages, debootstrapDir, imageDir } = baseImageKeys(choice);
  if (complete(imageDir)) return imageDir;
  fs.mkdirSync(CACHE_DIR, { recursive: true });

  await ensureDebootstrap(debootstrapDir, choice.suite, packages, "the base root filesystem", log);

  log("configuring the base image (users, sudo, sshd)…");
  const tmp = `${imageDir}.partial`;
  fs.rmSync(tmp, { recursive: true, force: true });
  run("cp", ["-a", "--reflink=auto", debootstrapDir, tmp]);
  fs.rmSync(path.join(tmp, ".bootdeck-complete"), { force: true });
  run("chroot", [tmp, "/bin/sh", "-c", CONFIGURE]);
  fs.writeFileSync(path.join(tmp, "etc/ssh/sshd_config.d/bootdeck-lab.conf"), SSHD_CONF);
  fs.writeFileSync(path.join(tmp, "usr/local/sbin/bootdeck-lab-boot"), HOST_ENTRY, { mode: 0o755 });
  fs.writeFileSync(path.join(tmp, "usr/local/sbin/bootdeck-lab-boot-without-systemd"), HOST_ENTRY_WITHOUT_SYSTEMD, { mode: 0o755 });
  fs.writeFileSync(path.join(tmp, ".bootdeck-complete"), new Date().toISOString());
  fs.renameSync(tmp, imageDir);
  log(`base image ready: ${imageDir}`);
  return imageDir;
}
