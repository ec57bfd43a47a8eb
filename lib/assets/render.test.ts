// The rendered asset set, checked by the tools that will consume it: openssl, kubectl and the
// Kubernetes schemas. Renders once per profile and key algorithm, then inspects the files on disk.
import { X509Certificate, createPrivateKey, createPublicKey } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { validateClusterDefinition, type ClusterDefinitionInput, type EncryptionAlgorithm } from "../cluster/definition";
import { deriveCluster } from "../cluster/derive";
import { exampleDefinition } from "../cluster/example";
import { capabilitiesFor } from "./capabilities";
import { carriesSystemMasters, certificatePlan, isCertEntry, type CertPlanEntry } from "./certificates";
import { apiserverSecretFiles, controllerManagerSecretFiles } from "./manifests/flags";
import { secretKey } from "./manifests/common";
import { renderAssets, selfHostedObjectsInOrder } from "./render";
import { parseManifest, run, validateObject, writeAssetsToTemp, type ParsedObject } from "./test-helpers";
import { TOKEN_PATTERN } from "./token";
import { keptPkiFrom } from "./keep";
import { RenderOptionsError, RenderValidationError, type RenderedAsset } from "./types";

function definition(version: string, hosts = 8): ClusterDefinitionInput {
  const def = exampleDefinition({ hosts });
  def.spec.kubernetes.version = version;
  return def;
}

function planFor(input: ClusterDefinitionInput): CertPlanEntry[] {
  const v = validateClusterDefinition(input);
  if (!v.ok) throw new Error("example must be valid");
  return certificatePlan(v.definition, deriveCluster(v.definition), capabilitiesFor(v.definition.spec.kubernetes.version)).filter(isCertEntry);
}

const byPath = (assets: RenderedAsset[], path: string): RenderedAsset => {
  const a = assets.find((x) => x.path === path);
  if (!a) throw new Error(`no asset ${path}`);
  return a;
};

/** What OpenSSL prints for each algorithm's keys and signatures. */
const expected: Record<EncryptionAlgorithm, { type: "rsa" | "ec"; size: number | string; signature: string }> = {
  "ECDSA-P256": { type: "ec", size: "prime256v1", signature: "ecdsa-with-SHA256" },
  "ECDSA-P384": { type: "ec", size: "secp384r1", signature: "ecdsa-with-SHA384" },
  "RSA-2048": { type: "rsa", size: 2048, signature: "sha256WithRSAEncryption" },
  "RSA-3072": { type: "rsa", size: 3072, signature: "sha256WithRSAEncryption" },
  "RSA-4096": { type: "rsa", size: 4096, signature: "sha256WithRSAEncryption" },
};

// Every algorithm on the default profile; the default (no field) where a new cluster gets it.
const cases: { name: string; version: string; algorithm: EncryptionAlgorithm; inDefinition: boolean }[] = [
  { name: "modern profile, the default ECDSA-P256", version: "v1.36.3", algorithm: "ECDSA-P256", inDefinition: false },
  { name: "modern profile, ECDSA-P384", version: "v1.36.3", algorithm: "ECDSA-P384", inDefinition: true },
  { name: "modern profile, RSA-2048", version: "v1.36.3", algorithm: "RSA-2048", inDefinition: true },
  { name: "modern profile, RSA-3072", version: "v1.36.3", algorithm: "RSA-3072", inDefinition: true },
  { name: "modern profile, RSA-4096", version: "v1.36.3", algorithm: "RSA-4096", inDefinition: true },
  { name: "oldest modern profile, ECDSA-P256", version: "v1.34.4", algorithm: "ECDSA-P256", inDefinition: true },
];

describe.each(cases)("a render for the $name", ({ version, algorithm, inDefinition }) => {
  const input = definition(version);
  if (inDefinition) input.spec.pki = { encryptionAlgorithm: algorithm };
  let assets: RenderedAsset[];
  let dir: string;
  const file = (p: string) => join(dir, p);
  const content = (p: string) => byPath(assets, p).content;

  beforeAll(async () => {
    assets = await renderAssets(input);
    dir = writeAssetsToTemp(assets);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("passes openssl verify for every certificate against its intended CA", () => {
    const plan = planFor(input);
    expect(plan.length).toBeGreaterThan(8);
    for (const entry of plan) {
      const issuer = plan.find((e) => e.name === (entry.issuer ?? entry.name));
      if (!issuer) throw new Error(`no issuer for ${entry.name}`);
      const r = run("openssl", ["verify", "-x509_strict", "-CAfile", file(`${issuer.stem}.crt`), file(`${entry.stem}.crt`)]);
      expect(r, entry.stem).toEqual({ code: 0, out: `${file(`${entry.stem}.crt`)}: OK\n` });
    }
  });

  it("does not let an etcd certificate pass against the cluster CA", () => {
    const r = run("openssl", ["verify", "-CAfile", file("tls/ca.crt"), file("tls/etcd-client.crt")]);
    expect(r.code).not.toBe(0);
  });

  it("pairs every key with its certificate (openssl's public keys compared)", () => {
    for (const entry of planFor(input)) {
      const fromCert = run("openssl", ["x509", "-in", file(`${entry.stem}.crt`), "-noout", "-pubkey"]);
      const fromKey = run("openssl", ["pkey", "-in", file(`${entry.stem}.key`), "-pubout"]);
      expect(fromCert.code).toBe(0);
      expect(fromKey.out, entry.stem).toBe(fromCert.out);
    }
  });

  it("pairs the service-account public key with its private key", () => {
    const derived = createPublicKey(createPrivateKey(content("tls/service-account.key"))).export({ type: "spki", format: "pem" });
    expect(content("tls/service-account.pub")).toBe(derived);
    expect(run("openssl", ["pkey", "-in", file("tls/service-account.key"), "-pubout"]).out).toBe(content("tls/service-account.pub"));
  });

  it(`makes every key ${algorithm} and signs every certificate with ${expected[algorithm].signature}`, () => {
    const want = expected[algorithm];
    const keys = assets.filter((a) => a.path.endsWith(".key"));
    expect(keys.length).toBeGreaterThan(10);
    for (const k of keys) {
      const key = createPrivateKey(k.content);
      expect(key.asymmetricKeyType, k.path).toBe(want.type);
      expect(want.type === "rsa" ? key.asymmetricKeyDetails?.modulusLength : key.asymmetricKeyDetails?.namedCurve, k.path).toBe(want.size);
    }
    for (const entry of planFor(input)) expect(run("openssl", ["x509", "-in", file(`${entry.stem}.crt`), "-noout", "-text"]).out, entry.stem).toContain(`Signature Algorithm: ${want.signature}`);
  });

  it("issues a kube-ca CA with a random positive serial for 10 years and 1-year leaves", () => {
    const ca = new X509Certificate(content("tls/ca.crt"));
    expect(ca.subject).toBe("CN=kube-ca");
    expect(ca.ca).toBe(true);
    expect(BigInt(`0x${ca.serialNumber}`)).toBeGreaterThan(0n);
    expect(ca.serialNumber.length).toBe(32);
    const days = (c: X509Certificate) => Math.round((Date.parse(c.validTo) - Date.parse(c.validFrom)) / 86_400_000);
    expect(days(ca)).toBe(3650);
    expect(days(new X509Certificate(content("tls/apiserver.crt")))).toBe(365);
  });

  it("gives the API server every master, the endpoint, loopback and the in-cluster names", () => {
    const san = new X509Certificate(content("tls/apiserver.crt")).subjectAltName ?? "";
    for (const n of ["192.0.2.11", "192.0.2.12", "192.0.2.13"]) expect(san).toContain(`IP Address:${n}`);
    for (const n of ["master-1", "master-3", "api.example.internal", "localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"])
      expect(san).toContain(`DNS:${n}`);
    expect(san).toContain("IP Address:127.0.0.1");
    expect(san).toContain("IP Address:10.3.0.1");
    expect(san).not.toContain("192.0.2.14"); // workers are not API servers
  });

  it("puts admin and apiserver-kubelet-client in system:masters and names the component clients", () => {
    expect(new X509Certificate(content("tls/admin.crt")).subject).toContain("O=system:masters");
    expect(new X509Certificate(content("tls/apiserver-kubelet-client.crt")).subject).toContain("O=system:masters");
    expect(new X509Certificate(content("tls/controller-manager.crt")).subject).toBe("CN=system:kube-controller-manager");
    expect(new X509Certificate(content("tls/scheduler.crt")).subject).toBe("CN=system:kube-scheduler");
  });

  it("gives every certificate a key of its own: no two certificates, nor the service-account key, share a public key", () => {
    const publicKeys = new Map<string, string>();
    const own = (what: string, spki: string) => {
      expect(publicKeys.get(spki), `${what} shares its key`).toBeUndefined();
      publicKeys.set(spki, what);
    };
    const certs = assets.filter((a) => a.path.endsWith(".crt"));
    for (const c of certs) own(c.path, new X509Certificate(c.content).publicKey.export({ type: "spki", format: "der" }).toString("base64"));
    own("tls/service-account.pub", createPublicKey(content("tls/service-account.pub")).export({ type: "spki", format: "der" }).toString("base64"));
    // 3 CAs, the API server and its 3 clients, admin, controller-manager, scheduler, and per master an
    // etcd server, an etcd peer and a kubelet certificate.
    expect(certs.length).toBe(3 + 4 + 3 + 3 * 3);
  });

  it("gives each master's kubelet its own node identity, and only the admin and the API server's kubelet client system:masters", () => {
    for (const m of ["master-1", "master-2", "master-3"]) {
      const c = new X509Certificate(content(`tls/kubelet/${m}.crt`));
      expect(c.subject).toBe(`O=system:nodes\nCN=system:node:${m}`);
      expect(run("openssl", ["verify", "-x509_strict", "-purpose", "sslclient", "-CAfile", file("tls/ca.crt"), file(`tls/kubelet/${m}.crt`)]).code).toBe(0);
      const kc = parseYaml(content(`auth/kubeconfig-kubelet-${m}`)) as { users: { name: string; user: Record<string, string> }[] };
      expect(kc.users[0]?.name).toBe(`system:node:${m}`);
      expect(Buffer.from(kc.users[0]?.user["client-certificate-data"] ?? "", "base64").toString()).toBe(content(`tls/kubelet/${m}.crt`));
    }
    expect(assets.some((a) => a.path.startsWith("tls/kubelet/worker-"))).toBe(false); // workers bootstrap theirs
    const masters = assets.filter((a) => a.path.endsWith(".crt") && new X509Certificate(a.content).subject.includes("O=system:masters")).map((a) => a.path);
    expect(masters.sort()).toEqual(["tls/admin.crt", "tls/apiserver-kubelet-client.crt"]);
    // What the plan review marks: every file holding such a certificate or its key, and nothing else.
    const pem = (c: string) => c.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    const embedded = (c: string) => [...c.matchAll(/client-certificate-data: (\S+)/g)].map((m) => Buffer.from(m[1] ?? "", "base64").toString());
    const mastersKeys = new Set(masters.map((p) => content(p.replace(/\.crt$/, ".key"))));
    for (const a of assets.filter((x) => !x.path.startsWith("manifests/"))) {
      const holds = [...pem(a.content), ...embedded(a.content)].some((c) => new X509Certificate(c).subject.includes("O=system:masters")) || mastersKeys.has(a.content);
      expect(carriesSystemMasters(a.path), a.path).toBe(holds);
    }
  });

  it("gives each etcd member server and peer certificates for its own address", () => {
    for (const [i, m] of ["master-1", "master-2", "master-3"].entries()) {
      for (const kind of ["server", "peer"]) {
        const c = new X509Certificate(content(`tls/etcd/${kind}-${m}.crt`));
        expect(c.subjectAltName).toContain(`IP Address:192.0.2.${11 + i}`);
        expect(c.subjectAltName).toContain(`DNS:${m}`);
        const text = run("openssl", ["x509", "-in", file(`tls/etcd/${kind}-${m}.crt`), "-noout", "-ext", "extendedKeyUsage"]).out;
        expect(text).toContain("TLS Web Server Authentication");
        expect(text).toContain("TLS Web Client Authentication");
      }
    }
    const client = run("openssl", ["x509", "-in", file("tls/etcd-client.crt"), "-noout", "-ext", "extendedKeyUsage"]).out;
    expect(client).toContain("TLS Web Client Authentication");
    expect(client).not.toContain("Server");
  });

  it("writes kubeconfigs kubectl parses, with the cluster CA embedded, a current-context and an explicit port", () => {
    const kubeconfigs = assets.filter((a) => a.path.startsWith("auth/kubeconfig"));
    expect(kubeconfigs.map((a) => a.path).sort()).toEqual([
      "auth/kubeconfig",
      "auth/kubeconfig-controller-manager",
      "auth/kubeconfig-kubelet",
      "auth/kubeconfig-kubelet-master-1",
      "auth/kubeconfig-kubelet-master-2",
      "auth/kubeconfig-kubelet-master-3",
      "auth/kubeconfig-scheduler",
    ]);
    for (const a of kubeconfigs) {
      const view = run("kubectl", ["--kubeconfig", file(a.path), "config", "view", "--raw", "-o", "json"]);
      expect(view.code, a.path).toBe(0);
      const cfg = JSON.parse(view.out) as {
        "current-context": string;
        clusters: { cluster: { server: string; "certificate-authority-data": string } }[];
      };
      expect(cfg["current-context"]).not.toBe("");
      const cluster = cfg.clusters[0]?.cluster;
      const loopback = a.path === "auth/kubeconfig-controller-manager" || a.path === "auth/kubeconfig-scheduler";
      expect(cluster?.server).toBe(loopback ? "https://127.0.0.1:6443" : "https://api.example.internal:6443");
      expect(Buffer.from(cluster?.["certificate-authority-data"] ?? "", "base64").toString()).toBe(content("tls/ca.crt"));
      expect(run("kubectl", ["--kubeconfig", file(a.path), "config", "current-context"]).out.trim()).toBe(cfg["current-context"]);
    }
  });

  it("renders manifests that parse and validate against the Kubernetes schemas", () => {
    // Kubernetes objects (the kubelet's, the runtime's and the API server's own files are not).
    const manifests = assets.filter((a) => a.path.endsWith(".yaml") && !/^(kubelet|runtime|apiserver)\//.test(a.path));
    expect(manifests.length).toBeGreaterThan(15);
    for (const m of manifests) {
      const objects = parseManifest(m.content);
      expect(objects.length, m.path).toBeGreaterThan(0);
      for (const o of objects) expect(() => validateObject(o), `${m.path} ${o.kind}/${o.metadata.name}`).not.toThrow();
    }
  });

  it("orders Namespaces and CRDs before everything else", () => {
    const files = assets.filter((a) => a.path.startsWith("manifests/")).map((a) => ({ path: a.path, objects: parseManifest(a.content) as never[] }));
    const ordered = selfHostedObjectsInOrder(files).map((o) => o.object.kind);
    const firstOther = ordered.findIndex((k) => k !== "Namespace" && k !== "CustomResourceDefinition");
    expect(ordered.slice(firstOther)).not.toContain("Namespace");
    expect(ordered.slice(firstOther)).not.toContain("CustomResourceDefinition");
    expect(ordered.indexOf("PodDisruptionBudget")).toBeGreaterThan(ordered.indexOf("Deployment"));
  });

  it("stores in Secrets exactly the files they carry", () => {
    const objects = (p: string) => parseManifest(content(p));
    const check = (secretPath: string, files: Record<string, string>) => {
      const secret = objects(secretPath)[0] as ParsedObject & { data: Record<string, string> };
      expect(Object.keys(secret.data).sort()).toEqual(Object.keys(files).map(secretKey).sort());
      for (const [rel, assetPath] of Object.entries(files)) expect(Buffer.from(secret.data[secretKey(rel)] ?? "", "base64").toString(), rel).toBe(content(assetPath));
    };
    check("manifests/kube-apiserver-secret.yaml", apiserverSecretFiles());
    check("manifests/kube-controller-manager-secret.yaml", controllerManagerSecretFiles());
  });

  it("puts the same bootstrap token in the kubelet kubeconfig and the token Secret", () => {
    const kc = parseYaml(content("auth/kubeconfig-kubelet")) as { users: { user: { token: string } }[] };
    const token = kc.users[0]?.user.token ?? "";
    expect(token).toMatch(TOKEN_PATTERN);
    const [id, secret] = token.split(".");
    const s = parseManifest(content("manifests/kubelet-bootstrap-token.yaml"))[0] as ParsedObject & { type: string; stringData: Record<string, string> };
    expect(s.metadata).toEqual({ name: `bootstrap-token-${id}`, namespace: "kube-system" });
    expect(s.type).toBe("bootstrap.kubernetes.io/token");
    expect(s.stringData["token-id"]).toBe(id);
    expect(s.stringData["token-secret"]).toBe(secret);
  });

  it("marks keys, tokens and kubeconfigs sensitive and nothing public", () => {
    for (const a of assets) {
      const secretish = a.path.endsWith(".key") || a.path.startsWith("auth/") || a.path.endsWith("-secret.yaml") || a.path.endsWith("bootstrap-token.yaml") || a.path === "apiserver/encryption-config.yaml";
      expect(a.sensitive, a.path).toBe(secretish);
      expect(a.mode).toBe(0o600);
      expect(a.purpose.length, a.path).toBeGreaterThan(10);
      if (!a.sensitive) expect(a.content, a.path).not.toContain("PRIVATE KEY");
    }
    expect(assets.map((a) => a.path)).toEqual([...assets.map((a) => a.path)].sort());
  });

  it("serves the cluster DNS at the DNS service IP and sends every apiserver an explicit secure port", () => {
    const svc = parseManifest(content("manifests/coredns-service.yaml"))[0] as ParsedObject & { spec: { clusterIP: string } };
    expect(svc.spec.clusterIP).toBe("10.3.0.10");
    for (const p of ["manifests/kube-apiserver.yaml", "bootstrap-manifests/bootstrap-apiserver.yaml"]) expect(content(p)).toContain("--secure-port=6443\n");
  });
});

describe("kubelet flags", () => {
  let modern: RenderedAsset[];
  beforeAll(async () => {
    modern = await renderAssets(definition("v1.36.3", 4));
  });

  it("sets no removed flag and no self-set role, and uses a KubeletConfiguration", () => {
    const dropIn = byPath(modern, "kubelet/10-bootdeck.conf").content;
    for (const f of ["--require-kubeconfig", "--allow-privileged", "--network-plugin", "--cni-conf-dir", "--pod-manifest-path", "--cluster_dns", "--cluster-dns", "hyperkube"])
      expect(dropIn).not.toContain(f);
    for (const f of ["--bootstrap-kubeconfig=", "--config=/var/lib/kubelet/config.yaml", "--lock-file=", "--exit-on-lock-contention"]) expect(dropIn).toContain(f);
    for (const h of ["master-1", "worker-1"]) expect(byPath(modern, `kubelet/hosts/${h}.env`).content).not.toContain("node-role.kubernetes.io");
    const cfg = parseYaml(byPath(modern, "kubelet/config-master.yaml").content) as Record<string, unknown>;
    expect(cfg).toMatchObject({
      apiVersion: "kubelet.config.k8s.io/v1beta1",
      kind: "KubeletConfiguration",
      authentication: { anonymous: { enabled: false }, webhook: { enabled: true } },
      authorization: { mode: "Webhook" },
      readOnlyPort: 0,
      rotateCertificates: true,
      cgroupDriver: "systemd",
      staticPodPath: "/etc/kubernetes/manifests",
      clusterDNS: ["10.3.0.10"],
    });
  });

  it("runs the kubelet as a host binary that systemd always restarts", () => {
    const unit = byPath(modern, "kubelet/kubelet.service").content;
    expect(unit).toContain("ExecStart=/usr/local/bin/kubelet");
    expect(unit).toContain("Restart=always");
    expect(unit).not.toMatch(/docker|rkt|podman/);
  });

  it("uses the API versions upstream serves and one image per component", () => {
    const all = (assets: RenderedAsset[]) => assets.filter((a) => a.path.startsWith("manifests/")).map((a) => a.content).join("\n");
    expect(all(modern)).not.toMatch(/policy\/v1beta1|apiextensions\.k8s\.io\/v1beta1|extensions\/v1beta1|hyperkube/);
    // The example pulls through a mirror: the registry host is replaced, the repository path kept.
    expect(all(modern)).toContain("image: registry.example.internal/k8s/kube-apiserver:v1.36.3");
    expect(all(modern)).toContain("image: registry.example.internal/k8s/flannel-io/flannel:v0.28.10");
    expect(all(modern)).toContain("apiVersion: apps/v1");
    expect(all(modern)).toContain("apiVersion: policy/v1");
  });
});

describe("flannel's network settings", () => {
  /** The flannel ConfigMap's net-conf.json and the flanneld container's args, from a render's manifests. */
  const flannelOf = (assets: RenderedAsset[]) => {
    const objects = assets.filter((a) => a.path.startsWith("manifests/")).flatMap((a) => parseManifest(a.content));
    const config = objects.find((o) => o.kind === "ConfigMap" && o.metadata?.name === "kube-flannel-cfg") as { data: Record<string, string> } | undefined;
    const daemonSet = objects.find((o) => o.kind === "DaemonSet" && o.metadata?.name === "kube-flannel-ds") as
      | { spec: { template: { spec: { containers: { name: string; args?: string[] }[] } } } }
      | undefined;
    if (!config || !daemonSet) throw new Error("no flannel ConfigMap or DaemonSet rendered");
    return {
      backend: (JSON.parse(config.data["net-conf.json"]!) as { Backend: Record<string, unknown> }).Backend,
      args: daemonSet.spec.template.spec.containers.find((c) => c.name === "kube-flannel")?.args ?? [],
    };
  };

  it("runs VXLAN over the chosen interface and UDP port; without them flannel keeps its own defaults (the default route's interface, 8472)", async () => {
    const chosen = definition("v1.36.3", 4);
    chosen.spec.network.flannel = { iface: "eth1", vxlanPort: 4790 };
    const [withChoice, withDefaults] = await Promise.all([renderAssets(chosen), renderAssets(definition("v1.36.3", 4))]);
    expect(flannelOf(withChoice).backend).toEqual({ Type: "vxlan", Port: 4790 });
    expect(flannelOf(withChoice).args).toContain("--iface=eth1");
    expect(flannelOf(withDefaults).backend).toEqual({ Type: "vxlan" });
    expect(flannelOf(withDefaults).args.some((a) => a.startsWith("--iface"))).toBe(false);
  });
});

describe("render inputs", () => {
  it("differs between two real renders in keys, serials and tokens", async () => {
    const [a, b] = await Promise.all([renderAssets(definition("v1.36.3", 4)), renderAssets(definition("v1.36.3", 4))]);
    for (const p of ["tls/ca.key", "tls/apiserver.key", "auth/kubeconfig-kubelet"]) expect(byPath(a, p).content).not.toBe(byPath(b, p).content);
    expect(new X509Certificate(byPath(a, "tls/ca.crt").content).serialNumber).not.toBe(new X509Certificate(byPath(b, "tls/ca.crt").content).serialNumber);
  });

  it("fails with field errors for overlapping networks and a cluster without masters", async () => {
    const overlapping = definition("v1.36.3", 4);
    overlapping.spec.network.serviceCidr = "10.2.0.0/24";
    await expect(renderAssets(overlapping)).rejects.toMatchObject({
      name: "RenderValidationError",
      problems: expect.arrayContaining([expect.objectContaining({ path: "spec.network.serviceCidr" })]),
    });
    const noMasters = definition("v1.36.3", 4);
    noMasters.spec.hosts = noMasters.spec.hosts.map((h) => ({ ...h, role: "worker" as const }));
    const err = await renderAssets(noMasters).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RenderValidationError);
    expect((err as RenderValidationError).problems).toContainEqual({ path: "spec.hosts", message: "needs at least one master" });
  });

  it("signs with an imported CA and refuses a key that does not match it", async () => {
    const tmp = writeAssetsToTemp([]);
    try {
      const made = run("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=corp-root", "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-days", "30", "-keyout", join(tmp, "ca.key"), "-out", join(tmp, "ca.crt")]);
      expect(made.code).toBe(0);
      const certPem = readFileSync(join(tmp, "ca.crt"), "utf8");
      const keyPem = readFileSync(join(tmp, "ca.key"), "utf8");
      const assets = await renderAssets(definition("v1.36.3", 4), { importedCa: { certPem, keyPem } });
      expect(byPath(assets, "tls/ca.crt").content).toBe(certPem);
      const dir = writeAssetsToTemp(assets);
      try {
        expect(run("openssl", ["verify", "-x509_strict", "-CAfile", join(tmp, "ca.crt"), join(dir, "tls/apiserver.crt")]).code).toBe(0);
        // A leaf never outlives the imported CA (30 days here).
        expect(Date.parse(new X509Certificate(byPath(assets, "tls/admin.crt").content).validTo)).toBeLessThanOrEqual(Date.parse(new X509Certificate(certPem).validTo));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      const other = run("openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]).out;
      await expect(renderAssets(definition("v1.36.3", 4), { importedCa: { certPem, keyPem: other } })).rejects.toThrow(RenderOptionsError);
      await expect(renderAssets(definition("v1.36.3", 4), { importedCa: { certPem, keyPem: other } })).rejects.toThrow("does not match");
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("keeps a kept PKI's algorithm for new keys and refuses another one: that would be a CA rotation", async () => {
    const rsa = definition("v1.36.3", 4);
    rsa.spec.pki = { encryptionAlgorithm: "RSA-2048" };
    const before = new Map((await renderAssets(rsa)).map((a) => [a.path, a.content]));
    // The definition no longer names it (as one saved before the field existed): the kept CA decides.
    const grown = definition("v1.36.3", 4);
    grown.spec.hosts.push({ name: "master-4", address: "192.0.2.30", role: "master" });
    const after = await renderAssets(grown, { keep: keptPkiFrom(before), joiningMembers: ["master-4"] });
    expect(byPath(after, "tls/ca.crt").content).toBe(before.get("tls/ca.crt"));
    expect(before.has("tls/etcd/server-master-4.key")).toBe(false);
    const added = createPrivateKey(byPath(after, "tls/etcd/server-master-4.key").content);
    expect([added.asymmetricKeyType, added.asymmetricKeyDetails?.modulusLength]).toEqual(["rsa", 2048]);
    grown.spec.pki = { encryptionAlgorithm: "ECDSA-P256" };
    await expect(renderAssets(grown, { keep: keptPkiFrom(before) })).rejects.toThrow("the cluster's PKI is RSA-2048; ECDSA-P256 would need new CAs");
  });

  it("rejects validity outside 1–36500 days", async () => {
    await expect(renderAssets(definition("v1.36.3", 4), { leafValidityDays: 0 })).rejects.toThrow(RenderOptionsError);
  });

  it("reports progress up to its total", async () => {
    const seen: [number, number][] = [];
    await renderAssets(definition("v1.36.3", 4), { onProgress: (d, t) => seen.push([d, t]) });
    const last = seen[seen.length - 1];
    expect(last?.[0]).toBe(last?.[1]);
    expect(seen.map(([d]) => d)).toEqual(seen.map((_, i) => i + 1));
  });
});
