// Lab names, paths and address ranges. Each lab gets its own bridge and /24 inside 10.237.0.0/16.
import path from "node:path";

export const CACHE_DIR = process.env.BOOTDECK_LAB_CACHE ?? "/var/cache/bootdeck-lab";
export const RUN_DIR = process.env.BOOTDECK_LAB_RUN ?? "/run/bootdeck-lab";
/** The hosts' disks for container images (/var/lib/containerd): on disk, not in RAM. */
export const LAB_DISK_DIR = process.env.BOOTDECK_LAB_DISK ?? "/var/lib/bootdeck-lab";
export const MIRROR = process.env.BOOTDECK_LAB_MIRROR ?? "http://deb.debian.org/debian";

/** The Debian releases a lab host can run: 12 (the default, as this machine) or 13. */
export const SUITES = ["bookworm", "trixie"] as const;
export type Suite = (typeof SUITES)[number];

/**
 * Packages in the hosts' base root filesystem (changing the list rebuilds the cached image): a server's
 * init and its network configuration at boot, sshd, sudo, basic tools; and what a provisioned server has
 * besides, so that bootstraps need no package mirror: the kubelet's host packages and keepalived (the API
 * address Bootdeck provisions on masters). A bare host has none of those and gets them from Debian's
 * archive through the lab's apt proxy, as Bootdeck's packages phase installs them.
 */
const IMAGE_PACKAGES = ["systemd", "systemd-sysv", "dbus", "ifupdown", "openssh-server", "sudo", "iproute2", "python3", "procps", "iptables", "socat", "util-linux", "mount", "ebtables", "ethtool", "conntrack", "curl", "ca-certificates", "keepalived"];
const PROVISIONED_ONLY = new Set(["iptables", "socat", "ebtables", "ethtool", "conntrack", "keepalived"]);

export function basePackages(bare: boolean): string[] {
  return bare ? IMAGE_PACKAGES.filter((p) => !PROVISIONED_ONLY.has(p)) : IMAGE_PACKAGES;
}

/** Well-known labs get fixed subnets; any other name takes the first free one from 10.237.30.0 up. */
export const FIXED_SUBNETS: Record<string, number> = { dev: 10, test: 20 };
export const SUBNET_PREFIX = "10.237";
export const FIRST_HOST_OCTET = 10;
export const MAX_HOSTS = 240;
/** The last octet of a lab's API address (a VIP keepalived holds on its masters), above every host's. */
export const VIP_OCTET = 250;

export const USERS = {
  /** Unprivileged user with passwordless sudo (what Bootdeck should be given on real hosts). */
  sudo: "deploy",
  /** A user whose sudo asks for a password (tests the clear error). */
  sudoWithPassword: "needpw",
};
/** Lab-only password for root, deploy and needpw (password-auth tests); the lab is not reachable from outside. */
export const LAB_PASSWORD = "bootdeck-lab-password";

export function validateLabName(name: string): string {
  if (!/^[a-z][a-z0-9]{0,7}$/.test(name)) {
    throw new Error(`lab name must be 1–8 lower-case letters/digits starting with a letter (it becomes interface names), got "${name}"`);
  }
  return name;
}

export const labDir = (name: string) => path.join(RUN_DIR, name);
export const statePath = (name: string) => path.join(labDir(name), "state.json");
export const bridgeName = (name: string) => `bdl-${name}`;
export const netnsName = (lab: string, host: string) => `bdl-${lab}-${host}`;
export const vethName = (subnet: number, index: number) => `bdv${subnet}h${index}`;
/** This repository, as the lab's background processes (mirror, Go helper) find it. */
export const REPO_ROOT = path.resolve(__dirname, "..");
