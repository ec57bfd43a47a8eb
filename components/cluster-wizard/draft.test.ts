import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { validateClusterDefinition, type ClusterDefinition, type ClusterDefinitionInput } from "@/lib/cluster/definition";
import { exampleDefinition } from "@/lib/cluster/example";
import { deriveCluster } from "@/lib/cluster/derive";
import { labClusterDefinition, labClusterSecrets } from "@/lab/cluster-yaml";
import type { LabState } from "@/lab/state";
import { emptyDraft, fromDefinition, toDefinition, toSecrets, type Draft } from "./draft";
import { reviewRows } from "./review";
import { fieldIdOf, stepOfPath } from "./steps";

const CA = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n";

function valid(input: unknown): ClusterDefinition {
  const r = validateClusterDefinition(input);
  if (!r.ok) throw new Error(`invalid: ${JSON.stringify(r.errors)}`);
  return r.definition;
}

/** Every field the wizard edits, away from its default. */
function fullDefinition(): ClusterDefinitionInput {
  const base = exampleDefinition();
  return {
    ...base,
    spec: {
      ...base.spec,
      kubernetes: { version: "v1.36.3", controlPlane: "self-hosted", allowCgroupV1: true },
      apiEndpoint: { type: "vip", host: "192.0.2.250", port: 6443, keepalived: { interface: "bond0", virtualRouterId: 77 } },
      network: { podCidr: "10.2.0.0/16", serviceCidr: "10.3.0.0/24", clusterDomain: "cluster.local", provider: "flannel", flannel: { iface: "eth1", vxlanPort: 4789 } },
      binaries: { baseUrl: "https://mirror.example.internal/dl.k8s.io/release", kubelet: { sha256: "a".repeat(64) } },
      runtime: { source: "packages", mirrorUrl: "https://mirror.example.internal/github.com", cgroupDriver: "cgroupfs" },
      images: { registry: "registry.example.internal:5000/k8s", ca: CA, auth: { username: "puller", credential: "pull-secret" } },
      credentials: [
        { name: "admin-key", type: "privateKey" },
        { name: "pull-secret", type: "password" },
      ],
    },
  };
}

const stored = (def: ClusterDefinition) => def.spec.credentials.map((c) => ({ name: c.name, fingerprint: c.type === "privateKey" ? "SHA256:abc" : null, hasSecret: true }));

describe("the draft round-trips every field the wizard shows", () => {
  test("a definition with runtime, images, registry auth, keepalived, flannel and cgroup v1 allowed", () => {
    const def = valid(fullDefinition());
    const draft = fromDefinition(def, stored(def));
    expect(draft).toMatchObject({
      allowCgroupV1: true,
      keepalivedInterface: "bond0",
      virtualRouterId: "77",
      flannelIface: "eth1",
      vxlanPort: "4789",
      kubeletSha256: "a".repeat(64),
      kubectlSha256: "",
      runtimeSource: "packages",
      runtimeMirrorUrl: "https://mirror.example.internal/github.com",
      cgroupDriver: "cgroupfs",
      registry: "registry.example.internal:5000/k8s",
      registryCa: CA,
      registryUsername: "puller",
    });
    // The registry's password is the images part's, not a credential the hosts step lists.
    expect(draft.credentials.map((c) => c.name)).toEqual(["admin-key"]);
    expect(draft.registryPassword).toMatchObject({ name: "pull-secret", type: "password", stored: true, password: "" });
    expect(valid(toDefinition(draft))).toEqual(def);
    // A stored secret is not sent again.
    expect(toSecrets(draft)).toEqual({});
  });

  test("the lab's own definition, as `lab cluster-yaml` writes it, and its secrets", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wizard-lab-"));
    fs.writeFileSync(path.join(dir, "ca.crt"), CA);
    fs.writeFileSync(path.join(dir, "password"), "s3cret\n");
    fs.writeFileSync(path.join(dir, "admin"), "-----BEGIN OPENSSH PRIVATE KEY-----\nkey\n-----END OPENSSH PRIVATE KEY-----\n");
    const state: LabState = {
      name: "t",
      subnet: "10.237.40.0/24",
      bridge: "bdl-t",
      gateway: "10.237.40.1",
      image: "",
      adminKeyPath: path.join(dir, "admin"),
      adminPublicKey: "",
      users: { root: "root", sudo: "deploy", sudoWithPassword: "ops" },
      password: "",
      mirrorUrl: "http://10.237.40.1:8780",
      registry: { address: "10.237.40.1:5000", caFile: path.join(dir, "ca.crt"), username: "bootdeck-lab", passwordFile: path.join(dir, "password") },
      createdAt: "",
      hosts: ["master-1", "worker-1", "worker-2"].map((name, i) => ({ name, role: i === 0 ? "master" : "worker", address: `10.237.40.${10 + i}`, port: 22, netns: "", iface: "eth0", veth: "", mac: "", dir: "", root: "", binds: [], powerPid: 0, hostKeyFingerprint: "" })),
    };
    const def = valid(labClusterDefinition(state).definition);
    const draft = fromDefinition(def, []);
    // Fresh secrets, as the wizard's user types them.
    const secrets = labClusterSecrets(state);
    draft.credentials[0]!.privateKey = secrets["lab-admin"]!.privateKey!;
    draft.registryPassword.password = secrets["lab-registry"]!.password!;
    // The wizard keeps no CLI-only secret paths: the dashboard stores the secrets themselves.
    const withoutFiles = { ...def, spec: { ...def.spec, credentials: def.spec.credentials.map(({ name, type }) => ({ name, type })) } };
    expect(valid(toDefinition(draft))).toEqual(withoutFiles);
    expect(toSecrets(draft)).toEqual(secrets);
  });

  test("a new draft filled as the lab's: the registry's password becomes a password credential named registry", () => {
    const d: Draft = {
      ...emptyDraft(),
      name: "lab",
      baseUrl: "http://10.237.40.1:8780/dl.k8s.io/release",
      registry: "10.237.40.1:5000",
      registryCa: CA,
      registryUsername: "bootdeck-lab",
      hosts: [{ key: "h", name: "master-1", address: "10.237.40.10", port: "", role: "master", user: "", credential: "", labels: "", bastion: "" }],
    };
    d.credentials[0]!.privateKey = "KEY";
    d.registryPassword = { ...d.registryPassword, password: "pw" };
    const def = toDefinition(d);
    expect(def.spec.images).toEqual({ registry: "10.237.40.1:5000", ca: CA, auth: { username: "bootdeck-lab", credential: "registry" } });
    expect(def.spec.credentials).toEqual([
      { name: "admin-key", type: "privateKey" },
      { name: "registry", type: "password" },
    ]);
    expect(toSecrets(d)).toEqual({ "admin-key": { privateKey: "KEY" }, registry: { password: "pw" } });
    expect(def.spec.runtime).toEqual({ source: "mirror", mirrorUrl: "https://github.com", cgroupDriver: "systemd" });
    expect(def.spec.kubernetes.allowCgroupV1).toBe(false);
    // A new cluster's keys are ECDSA-P256 unless chosen otherwise; an edited one without the field keeps its own.
    expect(def.spec.pki).toEqual({ encryptionAlgorithm: "ECDSA-P256" });
    expect(toDefinition({ ...d, encryptionAlgorithm: "RSA-3072" }).spec.pki).toEqual({ encryptionAlgorithm: "RSA-3072" });
    expect(toDefinition({ ...d, encryptionAlgorithm: "" }).spec.pki).toBeUndefined();
    // No registry user and no new password: no pull credentials, no registry credential.
    const plain = toDefinition({ ...d, registryUsername: "", registryPassword: { ...d.registryPassword, password: "" } });
    expect(plain.spec.images).toEqual({ registry: "10.237.40.1:5000", ca: CA });
    expect(plain.spec.credentials).toEqual([{ name: "admin-key", type: "privateKey" }]);
  });

  test("clearing the registry user in edit mode drops the stored password's credential", () => {
    const def = valid(fullDefinition());
    const draft = fromDefinition(def, stored(def));
    const out = valid(toDefinition({ ...draft, registryUsername: "" }));
    expect(out.spec.images.auth).toBeUndefined();
    expect(out.spec.credentials.map((c) => c.name)).toEqual(["admin-key"]);
  });

  test("a credential SSH uses too stays on the hosts step, and the registry uses it (shared)", () => {
    const input = fullDefinition();
    input.spec.credentials = [
      { name: "admin-key", type: "privateKey" },
      { name: "pull-secret", type: "password" },
    ];
    input.spec.hosts = input.spec.hosts.map((h, i) => (i === 0 ? { ...h, credential: "pull-secret" } : h));
    const def = valid(input);
    const draft = fromDefinition(def, stored(def));
    expect(draft.credentials.map((c) => c.name)).toEqual(["admin-key", "pull-secret"]);
    expect(valid(toDefinition(draft))).toEqual(def);
    // Its secret is typed on the hosts step only.
    expect(toSecrets({ ...draft, registryPassword: { ...draft.registryPassword, password: "ignored" } })).toEqual({});
  });

  test("without registry auth the registry credential's name is free: registry-2 when registry is taken", () => {
    const input = exampleDefinition();
    input.spec.credentials = [{ name: "registry", type: "privateKey" }];
    input.spec.ssh = { user: "root", port: 22, credential: "registry" };
    const draft = fromDefinition(valid(input), []);
    expect(draft.registryPassword.name).toBe("registry-2");
  });

  test("the oldest supported version keeps the runtime, the registry's CA and login, and the cgroup v1 choice", () => {
    const d: Draft = { ...emptyDraft(), version: "v1.34.4", allowCgroupV1: true, registry: "mirror.example.com", registryCa: CA, registryUsername: "u" };
    d.registryPassword = { ...d.registryPassword, password: "pw" };
    const def = toDefinition(d);
    expect(def.spec.runtime).toEqual({ source: d.runtimeSource, mirrorUrl: d.runtimeMirrorUrl, cgroupDriver: d.cgroupDriver });
    expect(def.spec.images).toEqual({ registry: "mirror.example.com", ca: CA, auth: { username: "u", credential: d.registryPassword.name } });
    expect(def.spec.kubernetes.allowCgroupV1).toBe(true);
    expect(def.spec.credentials).toContainEqual({ name: d.registryPassword.name, type: "password" });
  });
});

describe("the new fields' problems land on their fields", () => {
  const bad = (): Draft => {
    const d: Draft = {
      ...emptyDraft(),
      name: "c",
      apiType: "vip",
      apiHost: "192.0.2.250",
      keepalivedInterface: "eth 0",
      virtualRouterId: "300",
      flannelIface: "eth/1",
      vxlanPort: "70000",
      baseUrl: "ftp://mirror",
      runtimeMirrorUrl: "mirror.example.com",
      registry: "https://registry.example.com",
      registryCa: "not a certificate",
      registryUsername: "",
      hosts: [{ key: "h", name: "master-1", address: "192.0.2.10", port: "", role: "master", user: "", credential: "", labels: "", bastion: "" }],
    };
    d.credentials[0]!.privateKey = "KEY";
    d.registryPassword = { ...d.registryPassword, password: "pw" };
    return d;
  };

  test("each problem has a field on the step that shows it", () => {
    const d = bad();
    const r = validateClusterDefinition(toDefinition(d));
    expect(r.ok).toBe(false);
    const at = new Map((r.ok ? [] : r.errors).map((p) => [fieldIdOf(p.path, d), stepOfPath(p.path, d)]));
    expect(Object.fromEntries(at)).toEqual({
      "keepalived-iface": "basics",
      "vrrp-id": "basics",
      "flannel-iface": "network",
      "vxlan-port": "network",
      "base-url": "binaries",
      "runtime-mirror-url": "binaries",
      registry: "binaries",
      "registry-ca": "binaries",
      "registry-username": "binaries",
    });
  });

  test("the registry's password: its secret and its credential row lead to its field, a host's credential does not", () => {
    const d = bad();
    expect(fieldIdOf("secrets.registry.password", d)).toBe("registry-password");
    expect(stepOfPath("secrets.registry.password", d)).toBe("binaries");
    expect(fieldIdOf("spec.credentials[1].name", d)).toBe("registry-password");
    expect(stepOfPath("spec.credentials[1].name", d)).toBe("binaries");
    expect(fieldIdOf("spec.images.auth.credential", d)).toBe("registry-password");
    expect(fieldIdOf("secrets.admin-key.privateKey", d)).toBe("cred-0-key");
    expect(stepOfPath("secrets.admin-key.privateKey", d)).toBe("hosts");
    expect(stepOfPath("spec.credentials[0].name", d)).toBe("hosts");
    // Shared with an SSH credential: the hosts step has it.
    const shared = { ...d, credentials: [...d.credentials, { ...d.registryPassword, key: "x" }] };
    expect(fieldIdOf("secrets.registry.password", shared)).toBe("cred-1-password");
    expect(stepOfPath("secrets.registry.password", shared)).toBe("hosts");
  });
});

describe("the review", () => {
  test("shows the new fields and never a secret", () => {
    const def = valid(fullDefinition());
    const draft = fromDefinition(def, stored(def));
    draft.registryPassword.password = "hunter2-registry";
    draft.credentials[0]!.privateKey = "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n";
    const rows = Object.fromEntries(reviewRows(draft, deriveCluster(def)).map((r) => [r.id, r.value]));
    expect(rows).toMatchObject({
      "cgroup-v1-hosts": "allowed: the kubelet runs on them (failCgroupV1: false); preflight warns",
      "api-endpoint": "https://192.0.2.250:6443",
      "api-address-held-by": "keepalived on the masters, on bond0 (VRRP router id 77)",
      flannel: "VXLAN over eth1, UDP port 4789",
      binaries: "https://mirror.example.internal/dl.k8s.io/release",
      checksums: `kubelet pinned (${"a".repeat(12)}…); kubectl: its published .sha256`,
      "container-runtime": "containerd and runc from the hosts' packages; crictl and CNI plugins from https://mirror.example.internal/github.com; cgroupfs cgroup driver",
      images: "through registry.example.internal:5000/k8s, its CA given, as puller (new password)",
      credentials: "admin-key (privateKey, new secret), pull-secret (password, new secret)",
    });
    const text = JSON.stringify(rows);
    expect(text).not.toContain("hunter2");
    expect(text).not.toContain("PRIVATE KEY");
    expect(text).not.toContain("BEGIN CERTIFICATE");
  });

  test("the oldest supported version shows the runtime and the cgroup v1 choice", () => {
    const rows = reviewRows({ ...emptyDraft(), version: "v1.34.4" }, undefined).map((r) => r.id);
    expect(rows).toContain("container-runtime");
    expect(rows).toContain("cgroup-v1-hosts");
    expect(rows).toContain("images");
  });
});
