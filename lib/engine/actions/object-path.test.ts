// An object is read and written where the API serves it: its group version, namespace and plural (the
// kinds the engine writes from a table, any other from discovery), and its name as a path segment the
// way Kubernetes' own clients send it (":" as is).
import { describe, expect, it } from "vitest";
import { objectPath } from "./api-calls";

const api = {
  getJson: async <T>(path: string): Promise<T | undefined> =>
    (path === "/apis/example.com/v1"
      ? { resources: [{ kind: "Widget", name: "widgets/status", namespaced: true }, { kind: "Widget", name: "widgets", namespaced: true }, { kind: "Gadget", name: "gadgets", namespaced: false }] }
      : undefined) as T | undefined,
};

describe("objectPath", () => {
  it("keeps ':' in RBAC names and leaves out the namespace of cluster-scoped kinds", async () => {
    expect(await objectPath(api, { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", name: "system:coredns" })).toBe("/apis/rbac.authorization.k8s.io/v1/clusterroles/system:coredns");
    expect(await objectPath(api, { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", name: "a b", namespace: "kube-system" })).toBe("/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/roles/a%20b");
    expect(await objectPath(api, { apiVersion: "v1", kind: "Node", name: "worker-1" })).toBe("/api/v1/nodes/worker-1");
  });

  it("uses the core group's /api path; a collection for a create", async () => {
    expect(await objectPath(api, { apiVersion: "v1", kind: "Service", name: "kube-dns", namespace: "kube-system" })).toBe("/api/v1/namespaces/kube-system/services/kube-dns");
    expect(await objectPath(api, { apiVersion: "v1", kind: "ConfigMap", name: "x", namespace: "kube-system" }, false)).toBe("/api/v1/namespaces/kube-system/configmaps");
  });

  it("finds other kinds through discovery: the resource, not a subresource", async () => {
    expect(await objectPath(api, { apiVersion: "example.com/v1", kind: "Widget", name: "w", namespace: "apps" })).toBe("/apis/example.com/v1/namespaces/apps/widgets/w");
    expect(await objectPath(api, { apiVersion: "example.com/v1", kind: "Gadget", name: "g" })).toBe("/apis/example.com/v1/gadgets/g");
  });

  it("says when the API does not serve a kind", async () => {
    await expect(objectPath(api, { apiVersion: "example.com/v1", kind: "Thing", name: "t" })).rejects.toThrow(/does not serve example.com\/v1 Thing/);
  });
});
