// controlPlane: static — the control plane rendered as static pods for every master instead of
// self-hosted workloads, with no checkpoint; the same components and flags as the temporary control
// plane, reading the same files from their own host directory.
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { exampleDefinition } from "../cluster/example";
import { renderAssets } from "./render";
import { validateObject } from "./test-helpers";

type Pod = { metadata: { name: string; labels: Record<string, string> }; spec: { containers: { command: string[]; image: string }[]; volumes: { name: string; hostPath?: { path: string } }[] } };

describe("a static control plane's render", async () => {
  const def = exampleDefinition({ hosts: 5 });
  def.spec.kubernetes.controlPlane = "static";
  const assets = await renderAssets(def);
  const selfHosted = await renderAssets(exampleDefinition({ hosts: 5 }));
  const paths = assets.map((a) => a.path);
  const pod = (p: string) => parseAllDocuments(assets.find((a) => a.path === p)!.content)[0]!.toJSON() as Pod;

  it("has static pods for the three components and no self-hosted control plane or checkpoint", () => {
    expect(paths.filter((p) => p.startsWith("static-manifests/"))).toEqual(["static-manifests/kube-apiserver.yaml", "static-manifests/kube-controller-manager.yaml", "static-manifests/kube-scheduler.yaml"]);
    expect(paths.filter((p) => /^manifests\/kube-(apiserver|controller-manager|scheduler)/.test(p))).toEqual([]);
    expect(paths.filter((p) => p.startsWith("checkpoint/"))).toEqual([]);
    // Everything else is the same set: add-ons, RBAC, the temporary control plane, etcd, kubelets.
    const others = (list: string[]) => list.filter((p) => !/^(static-manifests|checkpoint)\/|^manifests\/kube-(apiserver|controller-manager|scheduler)/.test(p));
    expect(others(paths)).toEqual(others(selfHosted.map((a) => a.path)));
  });

  it("runs the temporary control plane's components with the same flags, from their own host directory", () => {
    for (const name of ["apiserver", "controller-manager", "scheduler"]) {
      const p = pod(`static-manifests/kube-${name}.yaml`);
      const b = parseAllDocuments(assets.find((a) => a.path === `bootstrap-manifests/bootstrap-${name}.yaml`)!.content)[0]!.toJSON() as Pod;
      validateObject(p as never);
      expect(p.metadata.name).toBe(`kube-${name}`);
      expect(p.metadata.labels["k8s-app"]).toBe(`kube-${name}`);
      expect(p.spec.containers[0]!.command).toEqual(b.spec.containers[0]!.command);
      expect(p.spec.containers[0]!.image).toBe(b.spec.containers[0]!.image);
      expect(p.spec.volumes.find((v) => v.name === "secrets")?.hostPath?.path).toBe("/etc/kubernetes/control-plane-secrets");
    }
  });
});
