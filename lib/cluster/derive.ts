// Values Bootdeck derives from a valid definition: shown on the wizard's review step and used by
// render and the engine, so that every consumer derives them the same way.
import type { ClusterDefinition, HostDefinition } from "./definition";
import { nthAddress, parseCidr } from "./ip";
import { isIPv6 } from "./net-syntax";
import { findVersionProfile, type VersionProfile } from "./versions";

export type EffectiveHost = HostDefinition & {
  port: number;
  user: string;
  credential: string | undefined;
};

export type Derived = {
  profile: VersionProfile;
  apiServiceIp: string;
  dnsServiceIp: string;
  /** https://host:port — always with an explicit port (bootkube #757). */
  apiServerUrl: string;
  apiEndpointHost: string;
  masters: EffectiveHost[];
  workers: EffectiveHost[];
  /** etcd runs on every master; the first master hosts the temporary control plane. */
  etcdMembers: { name: string; address: string; peerUrl: string; clientUrl: string }[];
};

export function hostUrlPart(address: string): string {
  return isIPv6(address) ? `[${address}]` : address;
}

/** Applies the cluster-wide SSH defaults to a host. */
export function effectiveHost(def: ClusterDefinition, host: HostDefinition): EffectiveHost {
  const single = def.spec.credentials.length === 1 ? def.spec.credentials[0]?.name : undefined;
  return {
    ...host,
    port: host.port ?? def.spec.ssh.port,
    user: host.user ?? def.spec.ssh.user,
    credential: host.credential ?? def.spec.ssh.credential ?? single,
  };
}

/** The default DNS service IP for a service CIDR (its 10th address), or undefined when malformed. */
export function defaultDnsServiceIp(serviceCidr: string): string | undefined {
  const c = parseCidr(serviceCidr);
  return typeof c === "string" ? undefined : nthAddress(c, 10);
}

export function deriveCluster(def: ClusterDefinition): Derived {
  const svc = parseCidr(def.spec.network.serviceCidr);
  const profile = findVersionProfile(def.spec.kubernetes.version);
  if (typeof svc === "string" || !profile) throw new Error("deriveCluster needs a validated definition");
  const hosts = def.spec.hosts.map((h) => effectiveHost(def, h));
  const masters = hosts.filter((h) => h.role === "master");
  const workers = hosts.filter((h) => h.role === "worker");
  const firstMaster = masters[0];
  if (!firstMaster) throw new Error("deriveCluster needs at least one master");
  const apiEndpointHost = def.spec.apiEndpoint.type === "first-master" ? firstMaster.address : (def.spec.apiEndpoint.host ?? "");
  return {
    profile,
    apiServiceIp: nthAddress(svc, 1),
    dnsServiceIp: def.spec.network.dnsServiceIp ?? nthAddress(svc, 10),
    apiServerUrl: `https://${hostUrlPart(apiEndpointHost)}:${def.spec.apiEndpoint.port}`,
    apiEndpointHost,
    masters,
    workers,
    etcdMembers: masters.map((m) => ({
      name: m.name,
      address: m.address,
      peerUrl: `https://${hostUrlPart(m.address)}:2380`,
      clientUrl: `https://${hostUrlPart(m.address)}:2379`,
    })),
  };
}
