// RBAC for the personal kubeconfigs Bootdeck hands out: each client certificate carries its holder's
// Bootdeck role as a group (O=bootdeck:<role>), and these bindings give the groups what the role may
// do on the cluster: admins cluster-admin (RBAC-bound, unlike system:masters, so it can be taken
// away), leads read-only plus rolling out workloads, support read-only (the built-in `view`).
import type { Role } from "../../auth/roles";
import type { ManifestFile, RenderContext } from "../context";
import { clusterRoleBinding, meta } from "./common";

/** The group a personal kubeconfig's certificate names for a Bootdeck role. */
export const userGroup = (role: Role) => `bootdeck:${role}`;

export const ROLLOUT_ROLE = "bootdeck:rollout";

export function userAccessManifests(ctx: RenderContext): ManifestFile[] {
  const group = (role: Role) => [{ kind: "Group" as const, name: userGroup(role) }];
  return [
    {
      path: "manifests/bootdeck-user-rbac.yaml",
      purpose: "what personal kubeconfigs may do: bootdeck:admin → cluster-admin, bootdeck:lead → view and rollouts, bootdeck:support → view",
      objects: [
        {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "ClusterRole",
          metadata: meta(ROLLOUT_ROLE, undefined),
          // What `kubectl rollout restart|undo|pause|resume|status` needs, and nothing else.
          rules: [
            { apiGroups: ["apps"], resources: ["deployments", "statefulsets", "daemonsets"], verbs: ["get", "list", "watch", "patch"] },
            { apiGroups: ["apps"], resources: ["replicasets", "controllerrevisions"], verbs: ["get", "list", "watch"] },
          ],
        },
        clusterRoleBinding("bootdeck:admins", "cluster-admin", group("admin")),
        clusterRoleBinding("bootdeck:leads-view", "view", group("lead")),
        clusterRoleBinding("bootdeck:leads-rollout", ROLLOUT_ROLE, group("lead")),
        clusterRoleBinding("bootdeck:support-view", "view", group("support")),
      ],
    },
  ];
}
