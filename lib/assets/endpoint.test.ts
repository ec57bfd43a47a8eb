import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { validateClusterDefinition } from "../cluster/definition";
import { exampleDefinition } from "../cluster/example";
import * as day2 from "../engine/actions/day2-scripts";
import { keepalivedConfig, keepalivedUnit, provisionsVip } from "./endpoint";
import { renderAssets } from "./render";

const vip = (keepalived?: object) => {
  const d = exampleDefinition();
  return { ...d, spec: { ...d.spec, apiEndpoint: { type: "vip" as const, host: "192.0.2.250", port: 6443, ...(keepalived ? { keepalived } : {}) } } };
};

describe("the API address Bootdeck provisions", () => {
  it("renders keepalived holding the VIP where the local API server answers, equal priorities (no flapping back)", async () => {
    const v = validateClusterDefinition(vip({ interface: "eth0" }));
    if (!v.ok) throw new Error(JSON.stringify(v.errors));
    expect(provisionsVip(v.definition)).toBe(true);
    const conf = keepalivedConfig(v.definition);
    expect(conf).toContain("    192.0.2.250/32 dev eth0");
    expect(conf).toContain("  virtual_router_id 51");
    // An API server that is gone or stopping gives the address up within about 4 s: two failed checks
    // (keepalived counts a check it stops at its limit as failed: the limit is far above curl's)…
    expect(conf).toContain(
      "vrrp_script bootdeck_apiserver_up {\n" +
        `  script "/bin/sh -c '! /usr/bin/curl -sk --max-time 2 -w :exit=%{exitcode}: -G -d verbose https://127.0.0.1:6443/readyz | grep -q -e :exit=7: -e ^.-.shutdown'"\n` +
        "  interval 2\n  timeout 10\n  fall 2\n  rise 1\n  weight -30\n}",
    );
    // …one that is alive but not ready keeps it for about 16 s (a loaded machine's API servers fail
    // /readyz now and then, and each move resets the connections through the address).
    expect(conf).toContain(
      "vrrp_script bootdeck_apiserver {\n" +
        '  script "/usr/bin/curl -skf --max-time 4 -o /dev/null https://127.0.0.1:6443/readyz"\n' +
        "  interval 2\n  timeout 5\n  fall 8\n  rise 2\n  weight -30\n}",
    );
    expect(conf).toContain("  track_script {\n    bootdeck_apiserver_up\n    bootdeck_apiserver\n  }");
    expect(conf).toContain("  priority 100");
    expect(conf).not.toContain("nopreempt");
    // Two backups may both take over at once: the winner repeats its ARP once the election settles.
    expect(conf).toContain("  vrrp_garp_master_delay 1");
    expect(conf).toContain("  vrrp_garp_lower_prio_repeat 3");
    // Leaving the address (a failed check, lost contact) resets the connections that ended here through
    // it, so clients on this master reconnect to the new holder at once; keepalived's parser expands
    // `$NAME`, so the configuration holds none.
    for (const on of ["notify_backup", "notify_fault"]) expect(conf).toMatch(new RegExp(`^  ${on} "/bin/sh -c '.*ip -o addr show to 192\\.0\\.2\\.250 .*; ss -K -t src 192\\.0\\.2\\.250 >/dev/null 2>&1'"$`, "m"));
    expect(conf).not.toContain("$");
    expect(keepalivedUnit()).toContain("ExecStart=/usr/sbin/keepalived --dont-fork --log-console --vrrp --use-file=/etc/bootdeck/keepalived.conf");
    const files = (await renderAssets(v.definition, { encryptionAlgorithm: "ECDSA-P256" })).map((a) => a.path);
    expect(files).toContain("endpoint/keepalived.conf");
    expect(files).toContain("endpoint/bootdeck-keepalived.service");
  });

  it("names an IPv6 address as ss(8) filters it when resetting its connections", () => {
    const d = vip({ interface: "eth0" });
    const v = validateClusterDefinition({ ...d, spec: { ...d.spec, apiEndpoint: { ...d.spec.apiEndpoint, host: "2001:db8::250" } } });
    if (!v.ok) throw new Error(JSON.stringify(v.errors));
    const conf = keepalivedConfig(v.definition);
    expect(conf).toContain("    2001:db8::250/128 dev eth0");
    expect(conf).toContain("ip -o addr show to 2001:db8::250 | grep -q . || break; sleep 0.2; done; ss -K -t src [2001:db8::250] >/dev/null");
  });

  it("renders nothing for an endpoint someone else provides", async () => {
    const v = validateClusterDefinition(vip());
    if (!v.ok) throw new Error(JSON.stringify(v.errors));
    expect(provisionsVip(v.definition)).toBe(false);
    expect((await renderAssets(v.definition, { encryptionAlgorithm: "ECDSA-P256" })).some((a) => a.path.startsWith("endpoint/"))).toBe(false);
  });

  it("accepts keepalived only for a VIP, on a well-formed interface and router id", () => {
    const d = exampleDefinition();
    const dns = validateClusterDefinition({ ...d, spec: { ...d.spec, apiEndpoint: { ...d.spec.apiEndpoint, keepalived: { interface: "eth0" } } } });
    expect(dns.ok ? [] : dns.errors).toContainEqual({ path: "spec.apiEndpoint.keepalived", message: "is only for a VIP endpoint (type: vip): keepalived holds that address on the masters" });
    const bad = validateClusterDefinition(vip({ interface: "eth0; rm -rf /", virtualRouterId: 300 }));
    expect(bad.ok ? [] : bad.errors.map((e) => e.path)).toEqual(["spec.apiEndpoint.keepalived.interface", "spec.apiEndpoint.keepalived.virtualRouterId"]);
  });

  it("sends scripts a POSIX shell parses", () => {
    // sh -n throws on a syntax error.
    const parsed = Object.entries(day2)
      .filter(([, script]) => typeof script === "string" && script.includes("\n"))
      .map(([name, script]) => (execFileSync("sh", ["-n", "-c", script as string], { stdio: "pipe" }), name));
    expect(parsed.sort()).toEqual(["ADDRESS_SCRIPT", "ENDPOINT_START_SCRIPT", "ETCD_SCRIPT", "KUBELET_ROLLBACK_SCRIPT", "KUBELET_SAVE_SCRIPT", "PULL_IMAGES_SCRIPT", "STOP_NODE_SCRIPT", "UPGRADE_PREFLIGHT_SCRIPT"]);
  });
});
