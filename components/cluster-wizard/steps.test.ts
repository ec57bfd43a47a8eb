import { describe, expect, test } from "vitest";
import { describeMessage, describePath, fieldIdOf, stepOfPath } from "./steps";

const draft = { hosts: [{ name: "master-1" }, { name: "" }, { name: "worker-2" }], credentials: [{ name: "admin-key" }, { name: "bastion-key" }] };

describe("problems as people read them", () => {
  test("paths name the host, not its index", () => {
    expect(describePath("spec.hosts[2].address", draft)).toBe("Host worker-2: address");
    expect(describePath("spec.hosts[1].name", draft)).toBe("Host row 2: name");
    expect(describePath("spec.hosts[0].bastion.credential", draft)).toBe("Host master-1: bastion credential");
    expect(describePath("secrets.bastion-key.privateKey", draft)).toBe("Credential bastion-key: private key");
    expect(describePath("spec.network.serviceCidr", draft)).toBe("Service CIDR");
  });

  test("messages that point at another host name it", () => {
    expect(describeMessage("duplicates the address of hosts[0]", draft)).toBe("duplicates the address of host master-1");
  });

  test("each path leads to its field, on its step", () => {
    expect(fieldIdOf("spec.hosts[2].address", draft)).toBe("host-2-address");
    expect(fieldIdOf("secrets.bastion-key.privateKey", draft)).toBe("cred-1-key");
    expect(fieldIdOf("spec.binaries.kubelet.sha256", draft)).toBe("kubelet-sha");
    expect(stepOfPath("spec.binaries.kubelet.sha256")).toBe("binaries");
    expect(stepOfPath("spec.runtime.cgroupDriver")).toBe("binaries");
    expect(stepOfPath("spec.images.auth.username")).toBe("binaries");
    expect(stepOfPath("spec.network.flannel.vxlanPort")).toBe("network");
    expect(stepOfPath("spec.apiEndpoint.keepalived.interface")).toBe("basics");
    expect(stepOfPath("spec.kubernetes.allowCgroupV1")).toBe("basics");
    expect(stepOfPath("spec.pki.encryptionAlgorithm")).toBe("basics");
    expect(fieldIdOf("spec.pki.encryptionAlgorithm", draft)).toBe("encryption-algorithm");
    expect(fieldIdOf("spec.apiEndpoint.keepalived.virtualRouterId", draft)).toBe("vrrp-id");
    expect(fieldIdOf("spec.images.ca", draft)).toBe("registry-ca");
  });

  test("the registry's own password is named as such, on the images step", () => {
    const withRegistry = { ...draft, registryPassword: { name: "registry" } };
    expect(describePath("secrets.registry.password", withRegistry)).toBe("Registry password");
    expect(describePath("spec.images.auth.credential", withRegistry)).toBe("Registry password");
    expect(stepOfPath("secrets.registry.password", withRegistry)).toBe("binaries");
    // Without the draft, a secret is an SSH one.
    expect(stepOfPath("secrets.registry.password")).toBe("hosts");
  });
});
