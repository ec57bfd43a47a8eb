// Every self-hosted manifest, and the order the engine creates them in.
import { isStaticControlPlane } from "../../cluster/definition";
import type { ManifestFile, RenderContext } from "../context";
import type { K8sObject } from "../yaml-out";
import { corednsManifests, flannelManifests, kubeProxyManifests } from "./addons";
import { bootstrapAuthManifests } from "./bootstrap-auth";
import { apiserverManifests, controllerManagerManifests, schedulerManifests } from "./control-plane";
import { userAccessManifests } from "./user-access";

export function selfHostedManifests(ctx: RenderContext): ManifestFile[] {
  // A static control plane runs from files on the masters: the cluster gets its add-ons only.
  const controlPlane = isStaticControlPlane(ctx.def) ? [] : [...apiserverManifests(ctx), ...controllerManagerManifests(ctx), ...schedulerManifests(ctx)];
  return [
    ...bootstrapAuthManifests(ctx),
    ...controlPlane,
    ...kubeProxyManifests(ctx),
    ...corednsManifests(ctx),
    ...flannelManifests(ctx),
    ...userAccessManifests(ctx),
  ];
}

/**
 * Creation order by kind: Namespaces, then CRDs (wait until served), then what pods depend on
 * (accounts, RBAC, config, secrets), then services and workloads, then budgets. Within a kind the
 * order is by file path and position, so it is stable across renders.
 */
export const kindOrder = [
  "Namespace",
  "CustomResourceDefinition",
  "ServiceAccount",
  "ClusterRole",
  "ClusterRoleBinding",
  "Role",
  "RoleBinding",
  "Secret",
  "ConfigMap",
  "Service",
  "DaemonSet",
  "Deployment",
  "PodDisruptionBudget",
] as const;

const rank = (kind: string): number => {
  const i = (kindOrder as readonly string[]).indexOf(kind);
  return i < 0 ? kindOrder.length : i;
};

export type OrderedObject = { path: string; object: K8sObject };

/** The self-hosted objects in creation order, each with the file it came from. */
export function selfHostedObjectsInOrder(files: readonly { path: string; objects: readonly K8sObject[] }[]): OrderedObject[] {
  const all = files.flatMap((f) => f.objects.map((object, i) => ({ path: f.path, object, i })));
  all.sort((a, b) => rank(a.object.kind) - rank(b.object.kind) || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.i - b.i));
  return all.map(({ path, object }) => ({ path, object }));
}
