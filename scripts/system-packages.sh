#!/usr/bin/env bash
# Installs the Debian packages Bootdeck's tests and lab need, only those missing. Needs root.
set -euo pipefail
packages=(
  chromium            # Playwright drives Debian's Chromium (no browser downloads here)
  openssh-server      # sshd inside every lab host
  openssh-client      # ssh-keygen for test keys; ssh for the Ansible comparison
  debootstrap         # builds the lab hosts' base root filesystem
  systemd-container   # systemd-nspawn boots each lab host's systemd
  tinyproxy           # bare lab hosts reach Debian's archive through it (lab/apt-proxy.ts)
  iproute2            # network namespaces, veth, bridge, tc netem
  etcd-server         # real etcd in lab hosts
  etcd-client
  ansible             # the fan-out benchmark's peer
  sqlite3
  postgresql          # the engine's tests on PostgreSQL (scripts/postgres.sh starts it)
  openssl             # certificate checks in the render tests
  ca-certificates
  procps
  util-linux          # unshare, nsenter, pivot_root
  gcc                 # the lab builds runc (cgo), flannel (cgo) and pause (C)
  libc6-dev           # static glibc for runc, flannel and pause
  libseccomp-dev      # runc's seccomp support, linked statically
  pkg-config
  curl                # the lab's mirror and registry readiness checks
  e2fsprogs           # mkfs.ext4: each lab host's own disk for containerd
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "system-packages: missing ${missing[*]}; run as root (or: sudo apt-get install -y ${missing[*]})" >&2
    exit 1
  fi
  echo "system-packages: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v kubectl >/dev/null || { echo "system-packages: kubectl is required (the render tests parse kubeconfigs with it)" >&2; exit 1; }
command -v go >/dev/null || [ -x /usr/local/go/bin/go ] || { echo "system-packages: Go is required at /usr/local/go (the lab builds Kubernetes from Go modules)" >&2; exit 1; }
