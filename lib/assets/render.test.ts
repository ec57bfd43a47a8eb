// The rendered asset set, checked by the tools that will consume it: openssl, kubectl and the
// Kubernetes schemas. Renders once per profile and key type, then inspects the files on disk.
import { X509Certificate, createPrivateKey, createPublicKey } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { validateClusterDefinition, type ClusterDefinitionInput } from "../cluster/definition";
import { deriveCluster } from "../cluster/derive";
import { exampleDefinition } from "../cluster/example";
import { capabilitiesFor } from "./capabilities";
import { certificatePlan, isCertEntry, type CertPlanEntry } from "./certificates";
import { apiserverSecretFiles, controllerManagerSecretFiles } from "./manifests/flags";
import { secretKey } from "./manifests/common";
import { renderAssets, selfHostedObjectsInOrder } from "./render";
import { parseManifest, run, validateObject, writeAssetsToTemp, type ParsedObject } from "./test-helpers";
import { TOKEN_PATTERN } from "./token";
import { RenderOptionsError, RenderValidationError, type KeyType, type RenderedAsset } from "./types";

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

const cases: { name: string; version: string; keyType: KeyType }[] = [
  { name: "modern profile, RSA-2048", version: "v1.36.3", keyType: "rsa" },
  { name: "oldest modern profile, ECDSA P-256", version: "v1.34.4", keyType: "ecdsa" },
];

describe.each(cases)("a render for the $name", ({ version, keyType }) => {
  const input = definition(version);
  let assets: RenderedAsset[];
  let dir: string;
  const file = (p: string) => join(dir, p);
  const content = (p: string) => byPath(assets, p).content;

  beforeAll(async () => {
    assets = await renderAssets(input, { keyType });
    dir = writeAssetsToTemp(assets);
  });
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

  it("uses the selected key type", () => {
    const key = createPrivateKey(content("tls/apiserver.key"));
    expect(key.asymmetricKeyType).toBe(keyType === "rsa" ? "rsa" : "ec");
    if (keyType === "rsa") expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
    else expect(key.asymmetricKeyDetails?.namedCurve).toBe("prime256v1");
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

  it("uses one key per holder: the API server's client certificates share its key, a member's peer certificate its server key, nothing else shares", () => {
    const keys = assets.filter((a) => a.path.endsWith(".key"));
    const frontProxy = keys.some((k) => k.path === "tls/front-proxy-client.key");
    const sameAs = (a: string, b: string) => expect(content(a), `${a} and ${b}`).toBe(content(b));
    for (const client of ["tls/apiserver-kubelet-client.key", "tls/etcd-client.key", ...(frontProxy ? ["tls/front-proxy-client.key"] : [])]) sameAs(client, "tls/apiserver.key");
    for (const m of ["master-1", "master-2", "master-3"]) sameAs(`tls/etcd/peer-${m}.key`, `tls/etcd/server-${m}.key`);
    // 3 CAs (2 without the front proxy), the API server, admin, controller-manager, scheduler, service account, 3 members.
    expect(new Set(keys.map((k) => k.content)).size).toBe(frontProxy ? 11 : 10);
    expect(byPath(assets, "tls/etcd-client.key").purpose).toBe("private key of tls/etcd-client.crt (the same key as tls/apiserver.key)");
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
    expect(kubeconfigs.map((a) => a.path).sort()).toEqual(["auth/kubeconfig", "auth/kubeconfig-controller-manager", "auth/kubeconfig-kubelet", "auth/kubeconfig-scheduler"]);
    for (const a of kubeconfigs) {
      const view = run("kubectl", ["--kubeconfig", file(a.path), "config", "view", "--raw", "-o", "json"]);
      expect(view.code, a.path).toBe(0);
      const cfg = JSON.parse(view.out) as {
        "current-context": string;
        clusters: { cluster: { server: string; "certificate-authority-data": string } }[];
      };
      expect(cfg["current-context"]).not.toBe("");
      const cluster = cfg.clusters[0]?.cluster;
      expect(cluster?.server).toBe(a.path === "auth/kubeconfig" || a.path === "auth/kubeconfig-kubelet" ? "https://api.example.internal:6443" : "https://127.0.0.1:6443");
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
      const secretish = a.path.endsWith(".key") || a.path.startsWith("auth/") || a.path.endsWith("-secret.yaml") || a.path.endsWith("bootstrap-token.yaml");
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
    modern = await renderAssets(definition("v1.36.3", 4), { keyType: "ecdsa" });
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
    const [withChoice, withDefaults] = await Promise.all([renderAssets(chosen, { keyType: "ecdsa" }), renderAssets(definition("v1.36.3", 4), { keyType: "ecdsa" })]);
    expect(flannelOf(withChoice).backend).toEqual({ Type: "vxlan", Port: 4790 });
    expect(flannelOf(withChoice).args).toContain("--iface=eth1");
    expect(flannelOf(withDefaults).backend).toEqual({ Type: "vxlan" });
    expect(flannelOf(withDefaults).args.some((a) => a.startsWith("--iface"))).toBe(false);
  });
});

describe("render inputs", () => {
  it("differs between two real renders in keys, serials and tokens", async () => {
    const [a, b] = await Promise.all([renderAssets(definition("v1.36.3", 4), { keyType: "ecdsa" }), renderAssets(definition("v1.36.3", 4), { keyType: "ecdsa" })]);
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
      const assets = await renderAssets(definition("v1.36.3", 4), { keyType: "ecdsa", importedCa: { certPem, keyPem } });
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

  it("rejects validity outside 1–36500 days", async () => {
    await expect(renderAssets(definition("v1.36.3", 4), { leafValidityDays: 0 })).rejects.toThrow(RenderOptionsError);
  });

  it("reports progress up to its total", async () => {
    const seen: [number, number][] = [];
    await renderAssets(definition("v1.36.3", 4), { keyType: "ecdsa", onProgress: (d, t) => seen.push([d, t]) });
    const last = seen[seen.length - 1];
    expect(last?.[0]).toBe(last?.[1]);
    expect(seen.map(([d]) => d)).toEqual(seen.map((_, i) => i + 1));
  });
});
