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

/**
 * Each API server talks to the etcd member on its own master (etcd runs on every master; its serving
 * certificate names 127.0.0.1). Listing every member instead, an API server whose client was bound to a
 * member on a master cut off hung its requests until gRPC gave up on that connection, so the master
 * that took over the API address could not serve for seconds. Local-only, a master's API server is
 * as healthy as its own etcd member, which its /readyz (and so the endpoint's health check) reports;
 * and adding or removing a master changes no API server's flags.
 */
export const ETCD_LOCAL_CLIENT_URL = "https://127.0.0.1:2379";

/** Master-only scheduling. The role label is set through the API by the engine (kubelets may not self-set it). */
export function masterSelector(): Record<string, string> {
  return { "node-role.kubernetes.io/control-plane": "" };
}

export function masterTolerations(): Record<string, string>[] {
  return [{ key: "node-role.kubernetes.io/control-plane", operator: "Exists", effect: "NoSchedule" }];
}

export const tolerateAll = [{ operator: "Exists" }];
