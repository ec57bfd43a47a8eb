// A lab host is a machine: systemd as PID 1, and a reboot — the lab's power cycle or systemctl reboot
// over SSH — leaves only what the host's boot configures, as a real one does.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { labState } from "../test/lab-hosts";
import { waitFor } from "../test/wait";
import { labReboot } from "./lab";
import type { LabState } from "./state";

function ssh(state: LabState, host: string, script: string): string {
  const h = state.hosts.find((x) => x.name === host);
  if (!h) throw new Error(`no host ${host}`);
  return execFileSync("ssh", ["-i", state.adminKeyPath, "-o", "UserKnownHostsFile=/dev/null", "-o", "StrictHostKeyChecking=no", "-o", "LogLevel=error", "-o", "BatchMode=yes", "-o", "ConnectTimeout=3", `root@${h.address}`, script], {
    encoding: "utf8",
    timeout: 60_000,
  });
}

/** What a host's network and firewall hold: links (no indices), routes, iptables rules. */
const networkState = (state: LabState, host: string) => ({
  links: ssh(state, host, "ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | sort").trim().split("\n"),
  routes: ssh(state, host, "ip route show").trim().split("\n"),
  rules: ssh(state, host, "iptables-save | grep -c -- '^-A' || true").trim(),
  addresses: ssh(state, host, "ip -o -4 addr show dev eth0 | awk '{print $4}'").trim().split("\n"),
});

describe("a lab host", () => {
  it("runs systemd as PID 1, which says it is running, sshd among its units", () => {
    const state = labState();
    expect(ssh(state, "host-1", "cat /proc/1/comm").trim()).toBe("systemd");
    expect(ssh(state, "host-1", "systemctl is-system-running || true").trim()).toBe("running");
    expect(ssh(state, "host-1", "systemctl show ssh.service -p ControlGroup --value").trim()).toBe("/system.slice/ssh.service");
  });

  it("comes back from a power cycle with only what its boot configures: no links, addresses, routes or rules added before", async () => {
    const state = labState();
    const booted = networkState(state, "host-2");
    expect(booted.links).toEqual(["eth0", "lo", "nowhere0"]);
    expect(booted.rules).toBe("0");
    ssh(state, "host-2", "ip link add extra0 type bridge && ip addr add 10.99.0.1/32 dev eth0 && ip route add 10.98.0.0/16 dev eth0 && iptables -A INPUT -s 192.0.2.1 -j DROP && touch /run/was-here");
    expect(networkState(state, "host-2")).not.toEqual(booted);
    const bootsBefore = ssh(state, "host-2", "journalctl --list-boots --no-pager | grep -c .").trim();
    await labReboot(state.name, ["host-2"], () => undefined);
    expect(networkState(state, "host-2")).toEqual(booted);
    expect(ssh(state, "host-2", "test -e /run/was-here && echo kept || echo gone").trim()).toBe("gone");
    // Its disk and journal persist: the boot before is still in the journal.
    expect(Number(ssh(state, "host-2", "journalctl --list-boots --no-pager | grep -c .").trim())).toBe(Number(bootsBefore) + 1);
  });

  it("reboots itself through systemd on `systemctl reboot` and comes back the same way", async () => {
    const state = labState();
    const bootId = ssh(state, "host-3", "cat /proc/sys/kernel/random/boot_id").trim();
    ssh(state, "host-3", "iptables -A INPUT -s 192.0.2.2 -j DROP; systemd-run --on-active=1 systemctl reboot >/dev/null");
    await waitFor("host-3 back with a new boot", () => {
      try {
        const now = ssh(state, "host-3", "cat /proc/sys/kernel/random/boot_id").trim();
        return now !== bootId && ssh(state, "host-3", "systemctl is-system-running || true").trim() === "running";
      } catch {
        return false;
      }
    }, 120_000, 500);
    expect(ssh(state, "host-3", "iptables-save | grep -c -- '^-A' || true").trim()).toBe("0");
    expect(ssh(state, "host-3", "cat /proc/1/comm").trim()).toBe("systemd");
  });
});
