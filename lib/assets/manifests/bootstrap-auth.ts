// Node bootstrapping: the bootstrap-token Secret, the CSR approval bindings and the in-cluster kubeconfig.
import { inClusterKubeconfig } from "../kubeconfig";
import type { ManifestFile, RenderContext } from "../context";
import { bootstrapTokenSecret } from "../token";
import { NS, clusterRoleBinding, meta } from "./common";

export function bootstrapAuthManifests(ctx: RenderContext): ManifestFile[] {
  return [
    {
      path: "manifests/kubeconfig-in-cluster.yaml",
      purpose: "kubeconfig for control-plane pods: their service-account token, the API URL with explicit port",
      objects: [
        {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: meta("kubeconfig-in-cluster", NS),
          data: { kubeconfig: inClusterKubeconfig({ clusterName: ctx.def.metadata.name, server: ctx.derived.apiServerUrl }) },
        },
      ],
    },
    {
      path: "manifests/kubelet-bootstrap-token.yaml",
      purpose: `kubelet bootstrap token ${ctx.token.id} (TLS bootstrapping of every node)`,
      objects: [bootstrapTokenSecret(ctx.token, { description: `Bootdeck kubelet bootstrap token for cluster ${ctx.def.metadata.name}` })],
      sensitive: true,
    },
    {
      path: "manifests/csr-bootstrap-role-bindings.yaml",
      purpose: "lets bootstrapping kubelets request, and get approved, their client certificates; lets nodes renew them",
      objects: [
        clusterRoleBinding("bootdeck:kubelet-bootstrap", "system:node-bootstrapper", [{ kind: "Group", name: "system:bootstrappers" }]),
        clusterRoleBinding("bootdeck:node-autoapprove-bootstrap", "system:certificates.k8s.io:certificatesigningrequests:nodeclient", [{ kind: "Group", name: "system:bootstrappers" }]),
        clusterRoleBinding("bootdeck:node-autoapprove-certificate-rotation", "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient", [{ kind: "Group", name: "system:nodes" }]),
      ],
    },
  ];
}
