// The hosts' shared base root filesystem: debootstrap minbase + lab configuration, cached by a hash of
// the package list (debootstrap output) and of the configuration (final image), so most runs reuse it.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { BASE_PACKAGES, CACHE_DIR, LAB_PASSWORD, MIRROR, SUITE, USERS } from "./config";
import { run, runStreaming } from "./sh";

/** PID 1 of each host: mounts its pseudo filesystems, starts sshd, then reaps orphans until stopped. */
export const HOST_INIT = `#!/bin/sh
# bootdeck lab host init (PID 1 in the host's pid, mount and cgroup namespaces)
# Mounts as on a machine of its own: shared propagation (the kubelet and containerd need it), /proc,
# /sys with every cgroup hierarchy (the host's own, through its cgroup namespace), a private /dev.
mount -t proc proc /proc
# This machine's root, left behind by pivot_root: the host sees only its own.
umount -l /.bootdeck-oldroot && rmdir /.bootdeck-oldroot
mount --make-rshared /
echo "$1" > /proc/sys/kernel/hostname
mount -t sysfs sysfs /sys 2>/dev/null || true
if grep -qv '^0::' /proc/self/cgroup; then
  mount -t tmpfs -o mode=755 cgroup /sys/fs/cgroup
  while IFS=: read -r id ctrls rest; do
    case "$ctrls" in
      "") mkdir -p /sys/fs/cgroup/unified && mount -t cgroup2 cgroup2 /sys/fs/cgroup/unified ;;
      name=*) d=\${ctrls#name=}; mkdir -p "/sys/fs/cgroup/$d" && mount -t cgroup -o "none,$ctrls" cgroup "/sys/fs/cgroup/$d" ;;
      *) mkdir -p "/sys/fs/cgroup/$ctrls" && mount -t cgroup -o "$ctrls" cgroup "/sys/fs/cgroup/$ctrls"
         case "$ctrls" in *,*) for c in $(echo "$ctrls" | tr , ' '); do ln -s "$ctrls" "/sys/fs/cgroup/$c"; done ;; esac ;;
    esac
  done < /proc/self/cgroup
else
  mount -t cgroup2 cgroup2 /sys/fs/cgroup
fi
mount -t tmpfs -o mode=755 tmpfs /run
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=755 tmpfs /dev
mknod -m 666 /dev/null c 1 3; mknod -m 666 /dev/zero c 1 5; mknod -m 666 /dev/full c 1 7
mknod -m 666 /dev/random c 1 8; mknod -m 666 /dev/urandom c 1 9; mknod -m 666 /dev/tty c 5 0
mknod -m 600 /dev/kmsg c 1 11
mkdir -p /dev/pts /dev/shm /run/sshd /run/lock
mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts /dev/pts
mount -t tmpfs -o mode=1777 shm /dev/shm
ln -s pts/ptmx /dev/ptmx; ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin; ln -s /proc/self/fd/1 /dev/stdout; ln -s /proc/self/fd/2 /dev/stderr
/usr/sbin/sshd -E /var/log/sshd.log
# Boot the units this host has enabled (containerd, the kubelet, …), as systemd would.
[ -d /etc/systemd/system/multi-user.target.wants ] && [ -x /usr/local/bin/systemctl ] && /usr/local/bin/systemctl daemon-reload >/dev/null 2>&1 &
trap 'exit 0' TERM INT
while :; do sleep 3600 & wait; done
`;

const SSHD_CONF = `# bootdeck lab: test hosts only, reachable only on the lab bridge
PermitRootLogin yes
PasswordAuthentication yes
UsePAM no
UseDNS no
MaxStartups 200:30:400
PidFile /run/sshd.pid
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
for u in root ${USERS.sudo} ${USERS.sudoWithPassword}; do h=$(getent passwd "$u" | cut -d: -f6); mkdir -p "$h/.ssh"; chmod 700 "$h/.ssh"; chown "$u:$u" "$h/.ssh"; done
apt-get clean
rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
`;

const hash = (...parts: string[]) => createHash("sha256").update(parts.join("\n")).digest("hex").slice(0, 12);

export function baseImageKeys() {
  const pkgKey = hash(SUITE, MIRROR, ...BASE_PACKAGES);
  const imageKey = hash(pkgKey, CONFIGURE, SSHD_CONF, HOST_INIT);
  return {
    debootstrapDir: path.join(CACHE_DIR, `debootstrap-${pkgKey}`),
    imageDir: path.join(CACHE_DIR, `rootfs-${imageKey}`),
  };
}

const complete = (dir: string) => fs.existsSync(path.join(dir, ".bootdeck-complete"));

/** Returns the cached image directory, building it first if needed (minutes the first time). */
export async function ensureBaseImage(log: (line: string) => void): Promise<string> {
  const { debootstrapDir, imageDir } = baseImageKeys();
  if (complete(imageDir)) return imageDir;
  fs.mkdirSync(CACHE_DIR, { recursive: true });

  if (!complete(debootstrapDir)) {
    const tmp = `${debootstrapDir}.partial`;
    fs.rmSync(tmp, { recursive: true, force: true });
    log(`building the base root filesystem with debootstrap (${SUITE}, minbase, ${BASE_PACKAGES.length} packages); takes a few minutes the first time…`);
    let n = 0;
    await runStreaming(
      "debootstrap",
      ["--variant=minbase", `--include=${BASE_PACKAGES.join(",")}`, SUITE, tmp, MIRROR],
      (line) => {
        // Print every line of the important phases, a heartbeat for the long package lists.
        if (/^I: (Retrieving Release|Validating Packages|Resolving|Found|Checking|Extracting base|Installing core|Configuring|Base system)/.test(line) || ++n % 25 === 0) {
          log(`  debootstrap: ${line.replace(/^I: /, "")}`);
        }
      },
    );
    fs.writeFileSync(path.join(tmp, ".bootdeck-complete"), new Date().toISOString());
    fs.renameSync(tmp, debootstrapDir);
  }

  log("configuring the base image (users, sudo, sshd)…");
  const tmp = `${imageDir}.partial`;
  fs.rmSync(tmp, { recursive: true, force: true });
  run("cp", ["-a", "--reflink=auto", debootstrapDir, tmp]);
  fs.rmSync(path.join(tmp, ".bootdeck-complete"), { force: true });
  run("chroot", [tmp, "/bin/sh", "-c", CONFIGURE]);
  fs.writeFileSync(path.join(tmp, "etc/ssh/sshd_config.d/bootdeck-lab.conf"), SSHD_CONF);
  fs.writeFileSync(path.join(tmp, "sbin/bootdeck-lab-init"), HOST_INIT, { mode: 0o755 });
  fs.writeFileSync(path.join(tmp, ".bootdeck-complete"), new Date().toISOString());
  fs.renameSync(tmp, imageDir);
  log(`base image ready: ${imageDir}`);
  return imageDir;
}
