// The stable API address Bootdeck provisions: a virtual IP held by keepalived (VRRP) on the masters.
// Every master runs the same configuration; the one whose API server answers on loopback and has the
// highest priority holds the address, and another takes it over (gratuitous ARP) within about three
// advertisement intervals when that master or its API server goes away. See docs/engine.md.
import type { ClusterDefinition } from "../cluster/definition";

export const ENDPOINT_PATHS = {
  /** Not /etc/keepalived/keepalived.conf: a host's own keepalived (and Debian's unit, which starts on that file) stays untouched. */
  config: "/etc/bootdeck/keepalived.conf",
  unit: "/etc/systemd/system/bootdeck-keepalived.service",
} as const;

export const ENDPOINT_UNIT = "bootdeck-keepalived";

/**
 * VRRP advertisement interval (s; VRRPv3 allows fractions): a backup takes over after 3 missed
 * advertisements plus a skew below the interval, about 1.8 s once the holder's link is gone.
 */
export const VRRP_ADVERT_INT_S = 0.5;
/** Each master's base priority; a failing API server check subtracts CHECK_WEIGHT. Equal bases: no flapping back after a failover. */
export const VRRP_PRIORITY = 100;
export const CHECK_WEIGHT = 30;

/**
 * Shell text that waits (up to 5 s) until the API address has left this host, then resets every TCP
 * connection whose local end is that address. Such connections cannot go on: their packets now reach
 * another master, and their clients on this host (its kubelet among them, which reached its own API
 * server through the address) would otherwise hang until their own health checks give up, about 35 s
 * for a kubelet, before they reconnect to the new holder. `at` and `filter` are shell words: the
 * address, and the address as ss(8) filters it (IPv6 in brackets). No `$` is needed, so the text also
 * goes into keepalived's configuration, whose parser expands `$NAME`.
 */
export function resetAddressConnections(at: string, filter: string): string {
  const tries = Array.from({ length: 25 }, (_, i) => i + 1).join(" ");
  return `for i in ${tries}; do ip -o addr show to ${at} | grep -q . || break; sleep 0.2; done; ss -K -t src ${filter}`;
}

/** The address as ss(8)'s filters take it. */
export const ssFilterOf = (address: string): string => (address.includes(":") ? `[${address}]` : address);

/** True when Bootdeck runs keepalived for this definition's endpoint. */
export const provisionsVip = (def: ClusterDefinition): boolean => def.spec.apiEndpoint.type === "vip" && def.spec.apiEndpoint.keepalived !== undefined;

export function keepalivedConfig(def: ClusterDefinition): string {
  const ep = def.spec.apiEndpoint;
  const ka = ep.keepalived;
  if (ep.type !== "vip" || !ka || !ep.host) throw new Error("keepalived is rendered only for a VIP endpoint with spec.apiEndpoint.keepalived");
  const vip = ep.host;
  const prefix = vip.includes(":") ? 128 : 32;
  return [
    "# Bootdeck: the cluster's API address on the masters (VRRP). Rendered; edits are replaced.",
    "global_defs {",
    `  router_id bootdeck-${def.metadata.name}`,
    "  enable_script_security",
    "  script_user root",
    // Version 3: sub-second advertisements.
    "  vrrp_version 3",
    // Repeat the gratuitous ARP a few times: a neighbour that missed the first still learns the new holder.
    "  vrrp_garp_master_repeat 3",
    "  vrrp_garp_master_refresh 30",
    // Equal priorities mean two backups can both take over when the holder goes; the election settles
    // within one advertisement, but the neighbours may have believed the loser's ARP last. The winner
    // announces itself again once that is settled (1 s after taking over, and on hearing the loser's
    // advertisement) instead of keepalived's 5 s, which left clients on a dead MAC for ~7 s.
    "  vrrp_garp_master_delay 1",
    "  vrrp_garp_lower_prio_repeat 3",
    "  vrrp_garp_lower_prio_delay 1",
    "}",
    "",
    // Two checks of the API server on loopback, for what nobody planned (Bootdeck's own runs move the
    // address before they stop an API server: release/rejoin). /readyz answers without credentials
    // (the authentication configuration allows it on health paths).
    // The first moves the address within about 4 s off an API server that is gone (nothing listens:
    // curl's exit 7) or stopping (its /readyz lists the shutdown check failed, which it does at once
    // while it still serves for --shutdown-delay-duration): two failures 2 s apart, neither of which
    // happens to one that is alive. A slow answer passes it (that is the second's to judge), and
    // keepalived's own limit is far above curl's: keepalived counts a check it had to stop as failed,
    // and on a loaded machine this one took up to 5 s with curl's 2 (a limit of 3 s moved the address).
    "vrrp_script bootdeck_apiserver_up {",
    `  script "/bin/sh -c '! /usr/bin/curl -sk --max-time 2 -w :exit=%{exitcode}: -G -d verbose https://127.0.0.1:${ep.port}/readyz | grep -q -e :exit=7: -e ^.-.shutdown'"`,
    "  interval 2",
    "  timeout 10",
    "  fall 2",
    "  rise 1",
    `  weight -${CHECK_WEIGHT}`,
    "}",
    "",
    // The second moves it off an API server that serves but is not ready (an error, or no answer within
    // 4 s), and only after 8 failures 2 s apart: about 16 s of errors, 30 s of hanging. On a loaded
    // machine an API server fails /readyz now and then while alive (its etcd slow to answer), and each
    // move resets the connections through the address. With three failures 2 s apart, a conformance
    // run on two cores saw two such resets within two minutes, no API server restarted (docs/engine.md).
    "vrrp_script bootdeck_apiserver {",
    `  script "/usr/bin/curl -skf --max-time 4 -o /dev/null https://127.0.0.1:${ep.port}/readyz"`,
    "  interval 2",
    "  timeout 5",
    "  fall 8",
    "  rise 2",
    `  weight -${CHECK_WEIGHT}`,
    "}",
    "",
    "vrrp_instance bootdeck_api {",
    "  state BACKUP",
    `  interface ${ka.interface}`,
    `  virtual_router_id ${ka.virtualRouterId}`,
    `  priority ${VRRP_PRIORITY}`,
    `  advert_int ${VRRP_ADVERT_INT_S}`,
    "  virtual_ipaddress {",
    `    ${vip}/${prefix} dev ${ka.interface}`,
    "  }",
    "  track_script {",
    "    bootdeck_apiserver_up",
    "    bootdeck_apiserver",
    "  }",
    // When this master gives the address up while running (its check failed and another took it over,
    // or it lost contact), the connections that ended here through the address are reset at once.
    // A planned release stops keepalived and resets them itself (the release script): systemd ends a
    // stopping unit's scripts with it.
    ...["notify_backup", "notify_fault"].map((on) => `  ${on} "/bin/sh -c 'PATH=/usr/sbin:/usr/bin:/sbin:/bin; ${resetAddressConnections(vip, ssFilterOf(vip))} >/dev/null 2>&1'"`),
    "}",
    "",
  ].join("\n");
}

/** Runs keepalived's VRRP part only, in the foreground, on Bootdeck's configuration. */
export function keepalivedUnit(): string {
  return [
    "[Unit]",
    "Description=Bootdeck API address (keepalived VRRP on the masters)",
    "After=network-online.target",
    "",
    "[Service]",
    `ExecStart=/usr/sbin/keepalived --dont-fork --log-console --vrrp --use-file=${ENDPOINT_PATHS.config} --pid=/run/bootdeck-keepalived.pid --vrrp_pid=/run/bootdeck-keepalived-vrrp.pid`,
    "Restart=always",
    "RestartSec=2",
    "",
    "[Install]",
    "WantedBy=multi-user.target",
    "",
  ].join("\n");
}
