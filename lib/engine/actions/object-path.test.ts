// A self-hosted object is read where the API serves it: its group version, namespace and plural from
// discovery, and its name as a path segment the way Kubernetes' own clients send it (":" as is).
import { describe, expect, it } from "vitest";
import { objectPath } from "./bootstrap";

const api = {
  getJson: async <T>(path: string): Promise<T | undefined> =>
    (path === "/apis/rbac.authorization.k8s.io/v1"
      ? { resources: [{ kind: "ClusterRole", name: "clusterroles", namespaced: false }, { kind: "Role", name: "roles", namespaced: true }] }
      : path === "/api/v1"
        ? { resources: [{ kind: "Service", name: "services", namespaced: true }, { kind: "Service", name: "services/status", namespaced: true }] }
        : undefined) as T | undefined,
};

describe("objectPath", () => {
  it("keeps ':' in RBAC names and leaves out the namespace of cluster-scoped kinds", async () => {
    expect(await objectPath(api, { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "system:coredns" } })).toBe("/apis/rbac.authorization.k8s.io/v1/clusterroles/system:coredns");
    expect(await objectPath(api, { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name: "a b", namespace: "kube-system" } })).toBe("/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/roles/a%20b");
  });

  it("uses the core group's /api path and the resource, not a subresource", async () => {
    expect(await objectPath(api, { apiVersion: "v1", kind: "Service", metadata: { name: "kube-dns", namespace: "kube-system" } })).toBe("/api/v1/namespaces/kube-system/services/kube-dns");
  });

  it("says when the API does not serve a kind", async () => {
    await expect(objectPath(api, { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" } })).rejects.toThrow(/does not serve example.com\/v1 Widget/);
  });
});
