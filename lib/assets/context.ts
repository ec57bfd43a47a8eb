// What every template needs, computed once per render.
import type { ClusterDefinition } from "../cluster/definition";
import type { Derived } from "../cluster/derive";
import type { Capabilities, Images } from "./capabilities";
import type { IssuedPki } from "./certificates";
import type { BootstrapToken } from "./token";
import type { K8sObject } from "./yaml-out";

export type RenderContext = {
  def: ClusterDefinition;
  derived: Derived;
  caps: Capabilities;
  images: Images;
  pki: IssuedPki;
  token: BootstrapToken;
  /** Plain content of every tls/ and auth/ file rendered so far, by asset path. */
  files: Map<string, string>;
};

export type ManifestFile = { path: string; purpose: string; objects: K8sObject[]; sensitive?: boolean };

/** Where control-plane pods find their secrets: the bootstrap pods via hostPath, the self-hosted ones via a Secret. */
export const SECRETS_DIR = "/etc/kubernetes/secrets";
export const BOOTSTRAP_SECRETS_HOST_DIR = "/etc/kubernetes/bootstrap-secrets";
export const IN_CLUSTER_KUBECONFIG_DIR = "/etc/kubernetes/kubeconfig";

export function fileOf(ctx: RenderContext, path: string): string {
  const f = ctx.files.get(path);
  if (f === undefined) throw new Error(`render: ${path} is needed before it was rendered`);
  return f;
}

export const securePort = (ctx: RenderContext): number => ctx.def.spec.apiEndpoint.port;

export const etcdServers = (ctx: RenderContext): string => ctx.derived.etcdMembers.map((m) => m.clientUrl).join(",");

/** Master-only scheduling. The role label is set through the API by the engine (kubelets may not self-set it from 1.16). */
export function masterSelector(ctx: RenderContext): Record<string, string> {
  return ctx.caps.selfLabelRole ? { master: "true" } : { "node-role.kubernetes.io/control-plane": "" };
}

export function masterTolerations(ctx: RenderContext): Record<string, string>[] {
  return ctx.caps.selfLabelRole
    ? [{ key: "node-role.kubernetes.io/master", operator: "Exists", effect: "NoSchedule" }]
    : [{ key: "node-role.kubernetes.io/control-plane", operator: "Exists", effect: "NoSchedule" }];
}

export const tolerateAll = [{ operator: "Exists" }];
