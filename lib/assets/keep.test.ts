// Rendering again for a running cluster keeps its PKI: a host added to the definition gets new leaves
// of its own, everything else stays byte for byte; an upgrade changes no secret at all.
import { X509Certificate } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { exampleDefinition } from "../cluster/example";
import type { ClusterDefinitionInput } from "../cluster/definition";
import { keptPkiFrom } from "./keep";
import { renderAssets } from "./render";
import type { RenderedAsset } from "./types";

const byPath = (assets: RenderedAsset[]) => new Map(assets.map((a) => [a.path, a.content]));

function withMaster4(def: ClusterDefinitionInput): ClusterDefinitionInput {
  const hosts = [...def.spec.hosts];
  hosts.splice(3, 0, { name: "master-4", address: "192.0.2.50", role: "master" });
  return { ...def, spec: { ...def.spec, hosts } };
}

function etcdCommand(content: string): string[] {
  const pod = YAML.parse(content) as { spec: { containers: { command: string[] }[] } };
  return pod.spec.containers[0]!.command;
}

describe("render keeping a running cluster's PKI", () => {
  const base = exampleDefinition({ hosts: 5 });
  let before: Map<string, string>;

  beforeAll(async () => {
    before = byPath(await renderAssets(base, { encryptionAlgorithm: "ECDSA-P256" }));
  });

  it("gives an added master its own etcd pair and kubelet settings and changes no other secret", async () => {
    const after = byPath(await renderAssets(withMaster4(base), { encryptionAlgorithm: "ECDSA-P256", keep: keptPkiFrom(before), joiningMembers: ["master-4"] }));
    const added = [...after.keys()].filter((p) => !before.has(p)).sort();
    expect(added).toEqual([
      "auth/kubeconfig-kubelet-master-4",
      "etcd/etcd-master-4.yaml",
      "kubelet/hosts/master-4.env",
      "tls/etcd/peer-master-4.crt",
      "tls/etcd/peer-master-4.key",
      "tls/etcd/server-master-4.crt",
      "tls/etcd/server-master-4.key",
      "tls/kubelet/master-4.crt",
      "tls/kubelet/master-4.key",
    ]);
    const changedSecrets = [...before.keys()].filter((p) => (p.startsWith("tls/") || p.startsWith("auth/")) && after.get(p) !== before.get(p));
    expect(changedSecrets).toEqual([]);
    // The new pair is signed by the kept etcd CA and names the new member.
    const ca = new X509Certificate(before.get("tls/etcd/ca.crt")!);
    const server = new X509Certificate(after.get("tls/etcd/server-master-4.crt")!);
    expect(server.verify(ca.publicKey)).toBe(true);
    expect(server.subjectAltName).toContain("IP Address:192.0.2.50");
    // The joining member starts against the running cluster; the others' pods are as they were.
    const cmd = etcdCommand(after.get("etcd/etcd-master-4.yaml")!);
    expect(cmd).toContain("--initial-cluster-state=existing");
    expect(cmd.find((f) => f.startsWith("--initial-cluster="))).toBe(
      "--initial-cluster=master-1=https://192.0.2.11:2380,master-2=https://192.0.2.12:2380,master-3=https://192.0.2.13:2380,master-4=https://192.0.2.50:2380",
    );
    for (const m of ["master-1", "master-2", "master-3"]) expect(after.get(`etcd/etcd-${m}.yaml`)).toBe(before.get(`etcd/etcd-${m}.yaml`));
    // Each API server talks to its own member: none of them changes.
    expect(after.get("manifests/kube-apiserver.yaml")).toBe(before.get("manifests/kube-apiserver.yaml"));
    expect(after.get("manifests/kube-apiserver-secret.yaml")).toBe(before.get("manifests/kube-apiserver-secret.yaml"));
  });

  it("keeps the shared keys of a set rendered when certificates shared them, and gives new certificates keys of their own", async () => {
    // Such a set: the API server's client certificates on its serving key, a member's peer certificate on its server key.
    const { generateKeyPairSync } = await import("node:crypto");
    const key = () => generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
    const [apiserver, member] = [key(), key()];
    const keys = { apiserver, "apiserver-kubelet-client": apiserver, "etcd-client": apiserver, "front-proxy-client": apiserver, "etcd-server-master-1": member, "etcd-peer-master-1": member };
    const shared = byPath(await renderAssets(base, { keys }));
    expect(shared.get("tls/etcd-client.key")).toBe(shared.get("tls/apiserver.key"));
    const after = byPath(await renderAssets(withMaster4(base), { keep: keptPkiFrom(shared), joiningMembers: ["master-4"] }));
    for (const p of ["tls/etcd-client.key", "tls/etcd/peer-master-1.key", "tls/apiserver.key", "tls/etcd-client.crt"]) expect(after.get(p)).toBe(shared.get(p));
    expect(after.get("tls/etcd/peer-master-4.key")).not.toBe(after.get("tls/etcd/server-master-4.key"));
  });

  it("changes no secret for another version, only what the version changes", async () => {
    const next = { ...base, spec: { ...base.spec, kubernetes: { ...base.spec.kubernetes, version: "v1.37.2" } } };
    const after = byPath(await renderAssets(next, { encryptionAlgorithm: "ECDSA-P256", keep: keptPkiFrom(before) }));
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    const changed = [...before.keys()].filter((p) => after.get(p) !== before.get(p));
    expect(changed.filter((p) => p.startsWith("tls/") || p.startsWith("auth/") || p.endsWith("-secret.yaml") || p === "manifests/kubelet-bootstrap-token.yaml")).toEqual([]);
    expect(changed).toContain("manifests/kube-apiserver.yaml");
    expect(after.get("manifests/kube-apiserver.yaml")).toContain("kube-apiserver:v1.37.2");
  });

  it("issues the API server's certificate again, with its kept key, when the endpoint it must name changed", async () => {
    const moved = { ...base, spec: { ...base.spec, apiEndpoint: { type: "dns" as const, host: "api2.example.internal", port: 6443 } } };
    const after = byPath(await renderAssets(moved, { encryptionAlgorithm: "ECDSA-P256", keep: keptPkiFrom(before) }));
    const old = new X509Certificate(before.get("tls/apiserver.crt")!);
    const now = new X509Certificate(after.get("tls/apiserver.crt")!);
    expect(now.serialNumber).not.toBe(old.serialNumber);
    expect(now.subjectAltName).toContain("DNS:api2.example.internal");
    expect(now.publicKey.export({ format: "der", type: "spki" }).equals(old.publicKey.export({ format: "der", type: "spki" }))).toBe(true);
    expect(after.get("tls/apiserver.key")).toBe(before.get("tls/apiserver.key"));
    expect(after.get("tls/ca.crt")).toBe(before.get("tls/ca.crt"));
  });
});
