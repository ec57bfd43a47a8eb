import { describe, expect, it } from "vitest";
import { validateClusterDefinition, type ClusterDefinitionInput, type Problem } from "./definition";
import { exampleDefinition } from "./example";

type Spec = ClusterDefinitionInput["spec"];

function withSpec(patch: (spec: Spec) => void, base = exampleDefinition()): ClusterDefinitionInput {
  const def = structuredClone(base);
  patch(def.spec);
  return def;
}

function errorsOf(input: unknown): Problem[] {
  const r = validateClusterDefinition(input);
  return r.ok ? [] : r.errors;
}

function messageAt(input: unknown, path: string): string {
  return errorsOf(input)
    .filter((e) => e.path === path)
    .map((e) => e.message)
    .join(" | ");
}

describe("a cluster definition", () => {
  it("is valid as the example gives it, with derived defaults filled in", () => {
    const r = validateClusterDefinition(exampleDefinition());
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.definition.spec.ssh).toEqual({ user: "root", port: 22, credential: "admin-key" });
      expect(r.warnings).toEqual([]);
    }
  });

  it("takes a key algorithm kubeadm offers, or none (the cluster's: docs/cluster-yaml.md)", () => {
    for (const a of ["ECDSA-P256", "ECDSA-P384", "RSA-2048", "RSA-3072", "RSA-4096"] as const) expect(errorsOf(withSpec((s) => (s.pki = { encryptionAlgorithm: a })))).toEqual([]);
    expect(errorsOf(withSpec((s) => (s.pki = {})))).toEqual([]);
    expect(messageAt(withSpec((s) => (s.pki = { encryptionAlgorithm: "RSA-1024" as never })), "spec.pki.encryptionAlgorithm")).toBe("must be one of ECDSA-P256, ECDSA-P384, RSA-2048, RSA-3072, RSA-4096");
    expect(messageAt(withSpec((s) => (s.pki = { keyType: "rsa" } as never)), "spec.pki")).toBe("unknown field: keyType");
  });

  it("reports every problem at once, each at its field path", () => {
    const def = withSpec((s) => {
      s.network.podCidr = "10.3.0.0/16";
      s.apiEndpoint.port = 70000;
      s.hosts[4]!.address = "$(reboot)";
      s.binaries.kubelet = { sha256: "xyz" };
    });
    const paths = errorsOf(def).map((e) => e.path).sort();
    expect(paths).toEqual(
      ["spec.apiEndpoint.port", "spec.binaries.kubelet.sha256", "spec.hosts[4].address", "spec.network.serviceCidr"].sort(),
    );
  });

  describe("networks", () => {
    it("rejects a malformed CIDR with the shape it expects", () => {
      expect(messageAt(withSpec((s) => (s.network.podCidr = "10.2.0.0")), "spec.network.podCidr")).toMatch(/10\.2\.0\.0\/16/);
      expect(messageAt(withSpec((s) => (s.network.podCidr = "300.2.0.0/16")), "spec.network.podCidr")).toMatch(/IPv4/);
      expect(messageAt(withSpec((s) => (s.network.podCidr = "10.2.0.0/33")), "spec.network.podCidr")).toMatch(/prefix/);
    });
    it("points out host bits set in a CIDR and suggests the network", () => {
      expect(messageAt(withSpec((s) => (s.network.podCidr = "10.2.3.4/16")), "spec.network.podCidr")).toContain("did you mean 10.2.0.0/16");
    });
    it("rejects overlapping pod and service CIDRs", () => {
      expect(messageAt(withSpec((s) => (s.network.serviceCidr = "10.2.128.0/24")), "spec.network.serviceCidr")).toMatch(/overlaps the pod CIDR/);
    });
    it("rejects a host address inside the pod or service network", () => {
      const def = withSpec((s) => {
        s.hosts[0]!.address = "10.2.5.5";
        s.hosts[1]!.address = "10.3.0.200";
      });
      expect(messageAt(def, "spec.hosts[0].address")).toMatch(/inside the pod CIDR/);
      expect(messageAt(def, "spec.hosts[1].address")).toMatch(/inside the service CIDR/);
    });
    it("rejects a DNS IP outside the service CIDR or equal to the API service IP", () => {
      expect(messageAt(withSpec((s) => (s.network.dnsServiceIp = "10.9.0.10")), "spec.network.dnsServiceIp")).toMatch(/inside the service CIDR/);
      expect(messageAt(withSpec((s) => (s.network.dnsServiceIp = "10.3.0.1")), "spec.network.dnsServiceIp")).toMatch(/API service IP/);
      expect(messageAt(withSpec((s) => (s.network.dnsServiceIp = "10.3.0.255")), "spec.network.dnsServiceIp")).toMatch(/broadcast/);
    });
    it("accepts a missing DNS IP (derived as the 10th service address)", () => {
      expect(validateClusterDefinition(withSpec((s) => delete s.network.dnsServiceIp)).ok).toBe(true);
    });
    it("rejects a cluster domain that is not a DNS name", () => {
      expect(messageAt(withSpec((s) => (s.network.clusterDomain = "Cluster Local")), "spec.network.clusterDomain")).toMatch(/DNS name/);
    });
  });

  describe("hosts", () => {
    it("needs at least one master", () => {
      const def = withSpec((s) => s.hosts.forEach((h) => (h.role = "worker")));
      expect(messageAt(def, "spec.hosts")).toMatch(/at least one master/);
    });
    it("warns about an even number of etcd members", () => {
      const def = withSpec((s) => (s.hosts[3]!.role = "master"));
      const r = validateClusterDefinition(def);
      expect(r.ok).toBe(true);
      expect(r.warnings.map((w) => w.message).join()).toMatch(/4 masters, an even number of etcd members/);
    });
    it("rejects more than 7 etcd members", () => {
      const def = withSpec((s) => {
        s.hosts = Array.from({ length: 9 }, (_, i) => ({ name: `m-${i}`, address: `192.0.2.${i + 1}`, role: "master" as const }));
      });
      expect(messageAt(def, "spec.hosts")).toMatch(/9 masters/);
    });
    it("rejects duplicate names and addresses", () => {
      const def = withSpec((s) => {
        s.hosts[1]!.name = s.hosts[0]!.name;
        s.hosts[0]!.address = "node-1.example.com";
        s.hosts[2]!.address = "node-1.example.com";
      });
      expect(messageAt(def, "spec.hosts[1].name")).toMatch(/duplicates the name of hosts\[0\]/);
      expect(messageAt(def, "spec.hosts[2].address")).toMatch(/duplicates the address of hosts\[0\]/);
    });
    it("accepts IPv4, IPv6 and DNS names as addresses", () => {
      const def = withSpec((s) => {
        s.hosts[0]!.address = "2001:db8::10";
        s.hosts[1]!.address = "master-2.dc1.example.com";
      });
      expect(errorsOf(def)).toEqual([]);
    });
    it("rejects ports out of range", () => {
      expect(messageAt(withSpec((s) => (s.hosts[0]!.port = 0)), "spec.hosts[0].port")).toMatch(/1 to 65535/);
      expect(messageAt(withSpec((s) => (s.ssh!.port = 65536)), "spec.ssh.port")).toMatch(/1 to 65535/);
    });
    it("rejects names that are not DNS-1123 labels", () => {
      for (const name of ["Master-1", "-a", "a_b", "a".repeat(64), "../etc", "a.b"])
        expect(messageAt(withSpec((s) => (s.hosts[0]!.name = name)), "spec.hosts[0].name"), name).not.toBe("");
    });
    it("rejects references to credentials that are not declared", () => {
      expect(messageAt(withSpec((s) => (s.hosts[0]!.credential = "nope")), "spec.hosts[0].credential")).toMatch(/not defined/);
    });
    it("rejects label keys and values Kubernetes would refuse", () => {
      const def = withSpec((s) => (s.hosts[0]!.labels = { "bad key": "x", zone: "a b" }));
      expect(errorsOf(def).filter((e) => e.path.startsWith("spec.hosts[0].labels")).length).toBe(2);
    });
  });

  describe("other fields", () => {
    it("rejects an unknown Kubernetes version and names the supported ones", () => {
      expect(messageAt(withSpec((s) => (s.kubernetes.version = "v1.20.0")), "spec.kubernetes.version")).toBe("is not a supported Kubernetes version; supported: v1.34.x, v1.35.x, v1.36.x, v1.37.x");
      // A profile that was dropped says why.
      expect(messageAt(withSpec((s) => (s.kubernetes.version = "v1.32.9")), "spec.kubernetes.version")).toMatch(/^v1\.32 is no longer supported \(out of upstream support\)/);
      expect(messageAt(withSpec((s) => (s.kubernetes.version = "v1.29.0")), "spec.kubernetes.version")).toBe("v1.29 is no longer supported (out of upstream support); supported: v1.34.x, v1.35.x, v1.36.x, v1.37.x");
    });
    it("rejects the retired 1.5 legacy profile, however it is written, and names the supported versions", () => {
      expect(messageAt(withSpec((s) => (s.kubernetes.version = "v1.5.3")), "spec.kubernetes.version")).toBe("v1.5 is no longer supported (the legacy hyperkube profile was retired); supported: v1.34.x, v1.35.x, v1.36.x, v1.37.x");
      expect(messageAt(withSpec((s) => (s.kubernetes.version = "1.5")), "spec.kubernetes.version")).toBe("must look like v1.36.3; supported: v1.34.x, v1.35.x, v1.36.x, v1.37.x");
      const v = validateClusterDefinition(withSpec((s) => ((s.kubernetes.version = "v1.5.3"), (s.kubernetes.controlPlane = "static"))));
      expect(v.ok).toBe(false);
      // Only the version is wrong: no error about what the version would have allowed.
      expect(!v.ok && v.errors).toEqual([{ path: "spec.kubernetes.version", message: expect.stringMatching(/^v1\.5 is no longer supported/) }]);
    });
    it("rejects a malformed SHA-256", () => {
      expect(messageAt(withSpec((s) => (s.binaries.kubectl = { sha256: "G".repeat(64) })), "spec.binaries.kubectl.sha256")).toMatch(/SHA-256/);
      expect(messageAt(withSpec((s) => (s.binaries.kubectl = { sha256: "a".repeat(63) })), "spec.binaries.kubectl.sha256")).toMatch(/SHA-256/);
    });
    it("takes an upper-case SHA-256 as the same checksum, stored in lower case", () => {
      const r = validateClusterDefinition(withSpec((s) => (s.binaries.kubectl = { sha256: ` ${"AB".repeat(32)} ` })));
      expect(r.ok && r.definition.spec.binaries.kubectl?.sha256).toBe("ab".repeat(32));
    });
    it("rejects a mistyped IPv4 address instead of taking it for a DNS name", () => {
      expect(messageAt(withSpec((s) => (s.hosts[0]!.address = "10.237.10.300")), "spec.hosts[0].address")).toBe("is not a valid IPv4 address: four numbers from 0 to 255, separated by dots");
      expect(messageAt(withSpec((s) => (s.hosts[0]!.address = "10.237.10")), "spec.hosts[0].address")).toMatch(/IPv4/);
      expect(messageAt(withSpec((s) => (s.hosts[0]!.address = "node-1.dc1.example.com")), "spec.hosts[0].address")).toBe("");
    });
    it("rejects mirror URLs that are not plain http(s) or carry credentials", () => {
      for (const url of ["ftp://x/y", "https://user:pw@mirror/x", "file:///etc/passwd", "https://mirror/x\nrm -rf /", "javascript:alert(1)"])
        expect(messageAt(withSpec((s) => (s.binaries.baseUrl = url)), "spec.binaries.baseUrl"), url).toMatch(/http/);
    });
    it("requires the endpoint host to match its type", () => {
      expect(messageAt(withSpec((s) => (s.apiEndpoint = { type: "vip", host: "api.example.com", port: 443 })), "spec.apiEndpoint.host")).toMatch(/IP address/);
      expect(messageAt(withSpec((s) => (s.apiEndpoint = { type: "dns", host: "10.0.0.1", port: 443 })), "spec.apiEndpoint.host")).toMatch(/DNS name/);
      expect(messageAt(withSpec((s) => (s.apiEndpoint = { type: "first-master", host: "x.example.com", port: 443 })), "spec.apiEndpoint.host")).toMatch(/empty/);
    });
    it("rejects unknown fields instead of ignoring them", () => {
      const def = { ...exampleDefinition(), extra: 1 };
      expect(messageAt(def, "(document)")).toMatch(/unknown field: extra/);
    });
    it("rejects oversized fields and lists", () => {
      expect(messageAt(withSpec((s) => (s.hosts[0]!.address = `${"a".repeat(250)}.com`)), "spec.hosts[0].address")).toMatch(/at most 253/);
      const many = withSpec((s) => {
        s.hosts = Array.from({ length: 2001 }, (_, i) => ({ name: `h-${i}`, address: `h-${i}.example.com`, role: "master" as const }));
      });
      expect(messageAt(many, "spec.hosts")).toMatch(/at most 2000 hosts/);
    });
  });

  describe("hostile strings", () => {
    const hostile = ["x'; rm -rf / #", "$(reboot)", "`id`", "a\nb", "../../etc/passwd", "a && b", "a|b", "\u0000", "-rf", "<script>alert(1)</script>"];
    it.each(hostile)("rejects %j wherever it would reach a host or a shell", (value) => {
      const def = withSpec((s) => {
        s.hosts[0]!.address = value;
        s.hosts[1]!.user = value;
        s.hosts[2]!.name = value;
        s.ssh!.credential = value;
      });
      const paths = errorsOf(def).map((e) => e.path);
      expect(paths).toEqual(expect.arrayContaining(["spec.hosts[0].address", "spec.hosts[1].user", "spec.hosts[2].name", "spec.ssh.credential"]));
    });
  });
});

describe("what errors echo", () => {
  it("clips a huge key in a field path", () => {
    const def = withSpec((s) => {
      s.hosts[0]!.labels = { ["k".repeat(1_000_000)]: "v" };
    });
    const errors = errorsOf(def);
    expect(errors.length).toBeGreaterThan(0);
    expect(JSON.stringify(errors).length).toBeLessThan(2_000);
  });
});
