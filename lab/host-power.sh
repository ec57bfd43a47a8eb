#!/bin/sh
# A lab host's power supply (test bed only; lab/lab.ts starts one per host and per power-on). Each boot
# starts from what a machine has at power-on: a new network namespace holding only its NIC (the veth,
# same MAC every boot, its other end on the lab bridge), empty cgroups, and its disk (the overlay root
# and the loop-mounted disk, which persist). Then systemd-nspawn boots the host's systemd. A reboot
# from inside the host (`systemctl reboot`: nspawn exits 133) powers it on again; a poweroff, or the
# host's init killed (lab reboot: a hard power cycle), ends this script.
#
# Environment: HOST ROOT NETNS VETH MAC BRIDGE CGROUPS (the host's cgroup directories, one per
# hierarchy) BINDS (nspawn --bind= arguments, space separated) ENTRY (the host's first program and its
# nspawn options: "/usr/local/sbin/bootdeck-lab-boot", or "--as-pid2 …-without-systemd").
set -u
log() { echo "host-power[$HOST]: $*"; }

# Joined once: nspawn and everything it starts inherit the host's cgroups.
for d in $CGROUPS; do echo $$ > "$d/cgroup.procs"; done

while :; do
  ip netns del "$NETNS" 2>/dev/null
  ip link del "$VETH" 2>/dev/null
  ip netns add "$NETNS"
  ip link add "$VETH" type veth peer name "${VETH}p"
  ip link set "${VETH}p" netns "$NETNS"
  ip -n "$NETNS" link set "${VETH}p" name eth0 address "$MAC"
  ip link set "$VETH" master "$BRIDGE" up
  # The previous boot's cgroups go with its processes, as a kernel boots with none but the root.
  for d in $CGROUPS; do find "$d" -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null; done
  log "power on"
  binds=""
  for b in $BINDS; do binds="$binds --bind=$b"; done
  # API VFS writable and no seccomp filter: the kubelet, containerd and kube-proxy write /proc/sys and
  # /sys as on a machine; every capability (but what this machine's bounding set lacks) for the same reason.
  # shellcheck disable=SC2086
  SYSTEMD_NSPAWN_API_VFS_WRITABLE=1 SYSTEMD_SECCOMP=0 systemd-nspawn --quiet --directory="$ROOT" \
    --machine="$HOST" --register=no --keep-unit --network-namespace-path="/run/netns/$NETNS" \
    --capability=all --resolv-conf=off --timezone=off --link-journal=no --console=read-only \
    $binds $ENTRY
  rc=$?
  log "nspawn exited with $rc"
  [ "$rc" = 133 ] || exit "$rc"
done
