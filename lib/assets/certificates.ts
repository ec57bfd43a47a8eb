// The certificate plan: which keys and certificates a cluster needs, who signs each, and with what
// names. Data first (`certificatePlan`), then `issueCertificates` runs it concurrently.
import { X509Certificate, type KeyObject } from "node:crypto";
import type { ClusterDefinition } from "../cluster/definition";
import type { Derived } from "../cluster/derive";
import { isIP } from "../cluster/net-syntax";
import { keyPairFrom, privateKeyPem, publicKeyPem, startKeyGeneration, type KeyPair } from "./pki";
import type { EncryptionAlgorithm } from "../cluster/definition";
import { RenderOptionsError, type ImportedCa } from "./types";
import { buildCertificate, certificateDer, certificatePem, type AltName, type NameAttr, type Usage } from "./x509";
import type { Capabilities } from "./capabilities";

export type CertPlanEntry = {
  /** Key name: the key for `keys` injection and the plan's id. */
  name: string;
  /** Path stem: writes `<stem>.crt` and `<stem>.key`. */
  stem: string;
  /** Plan entry that signs this one; undefined for a self-signed CA. */
  issuer?: string;
  isCa: boolean;
  subject: NameAttr[];
  usages: Usage[];
  altNames: AltName[];
  purpose: string;
};

export type PlanEntry = CertPlanEntry | { name: "service-account"; keyOnly: true };

export const CA = "ca";
export const ETCD_CA = "etcd-ca";
export const FRONT_PROXY_CA = "front-proxy-ca";

const cn = (value: string): NameAttr => ({ shortName: "CN", value });
const o = (value: string): NameAttr => ({ shortName: "O", value });
const alt = (v: string): AltName => (isIP(v) ? { ip: v } : { dns: v });

function uniqueAltNames(values: string[]): AltName[] {
  const seen = new Set<string>();
  return values.filter((v) => v !== "" && !seen.has(v.toLowerCase()) && seen.add(v.toLowerCase())).map(alt);
}

/** The apiserver's SANs: added to, never replacing, the defaults (bootkube's alt-names mistake). */
export function apiserverAltNames(def: ClusterDefinition, derived: Derived): AltName[] {
  const domain = def.spec.network.clusterDomain;
  return uniqueAltNames([
    ...derived.masters.flatMap((m) => [m.address, m.name]),
    derived.apiEndpointHost,
    "127.0.0.1",
    "localhost",
    "kubernetes",
    "kubernetes.default",
    "kubernetes.default.svc",
    `kubernetes.default.svc.${domain}`,
    derived.apiServiceIp,
  ]);
}

/**
 * Every certificate gets a key of its own, and the service-account signing pair one more (the only key
 * Kubernetes itself shares, between the API server and the controller-manager). Separate CAs exist so
 * that one leaked key does not open everything: the API server's client keys towards kubelets, etcd and
 * aggregated API servers are not its serving key, and an etcd member's peer key is not its server key.
 */
export function certificatePlan(def: ClusterDefinition, derived: Derived, caps: Capabilities): PlanEntry[] {
  const plan: PlanEntry[] = [
    { name: CA, stem: "tls/ca", isCa: true, subject: [cn("kube-ca")], usages: [], altNames: [], purpose: "cluster CA: signs the API server, client and kubelet certificates" },
    {
      name: "apiserver", stem: "tls/apiserver", issuer: CA, isCa: false, subject: [cn("kube-apiserver")], usages: ["serverAuth"],
      altNames: apiserverAltNames(def, derived), purpose: "API server serving certificate (every master, the API endpoint, in-cluster names)",
    },
    { name: "admin", stem: "tls/admin", issuer: CA, isCa: false, subject: [o("system:masters"), cn("kubernetes-admin")], usages: ["clientAuth"], altNames: [], purpose: "cluster administrator client certificate (system:masters)" },
    {
      name: "apiserver-kubelet-client", stem: "tls/apiserver-kubelet-client", issuer: CA, isCa: false,
      subject: [o("system:masters"), cn("kube-apiserver-kubelet-client")], usages: ["clientAuth"], altNames: [], purpose: "API server's client certificate towards kubelets (logs, exec)",
    },
    { name: "controller-manager", stem: "tls/controller-manager", issuer: CA, isCa: false, subject: [cn("system:kube-controller-manager")], usages: ["clientAuth"], altNames: [], purpose: "controller-manager client certificate" },
    { name: "scheduler", stem: "tls/scheduler", issuer: CA, isCa: false, subject: [cn("system:kube-scheduler")], usages: ["clientAuth"], altNames: [], purpose: "scheduler client certificate" },
    { name: "service-account", keyOnly: true },
    { name: ETCD_CA, stem: "tls/etcd/ca", isCa: true, subject: [cn("etcd-ca")], usages: [], altNames: [], purpose: "etcd CA, separate from the cluster CA: only etcd members and the API server reach etcd" },
  ];
  for (const m of derived.etcdMembers) {
    const names = uniqueAltNames([m.address, m.name, "localhost", "127.0.0.1"]);
    plan.push(
      { name: `etcd-server-${m.name}`, stem: `tls/etcd/server-${m.name}`, issuer: ETCD_CA, isCa: false, subject: [o("etcd"), cn(m.name)], usages: ["serverAuth", "clientAuth"], altNames: names, purpose: `etcd client-port serving certificate for ${m.name}` },
      { name: `etcd-peer-${m.name}`, stem: `tls/etcd/peer-${m.name}`, issuer: ETCD_CA, isCa: false, subject: [o("etcd"), cn(m.name)], usages: ["serverAuth", "clientAuth"], altNames: names, purpose: `etcd peer certificate for ${m.name} (member-to-member TLS)` },
    );
  }
  // Each master's kubelet authenticates as its node (system:node:NAME, so NodeRestriction applies), from
  // a certificate issued here because it must run etcd's static pod before any API server could sign a
  // CSR; it renews the certificate itself through CSRs (rotateCertificates). Workers bootstrap theirs.
  for (const m of derived.masters)
    plan.push({
      name: `kubelet-${m.name}`, stem: `tls/kubelet/${m.name}`, issuer: CA, isCa: false, subject: [o("system:nodes"), cn(`system:node:${m.name}`)], usages: ["clientAuth"],
      altNames: [], purpose: `client certificate of ${m.name}'s kubelet (system:node:${m.name}; it renews it through CSRs)`,
    });
  plan.push({ name: "etcd-client", stem: "tls/etcd-client", issuer: ETCD_CA, isCa: false, subject: [o("etcd"), cn("kube-apiserver-etcd-client")], usages: ["clientAuth"], altNames: [], purpose: "API server's client certificate towards etcd" });
  plan.push(
    { name: FRONT_PROXY_CA, stem: "tls/front-proxy-ca", isCa: true, subject: [cn("front-proxy-ca")], usages: [], altNames: [], purpose: "front-proxy CA: the aggregation layer trusts only what it signs" },
    { name: "front-proxy-client", stem: "tls/front-proxy-client", issuer: FRONT_PROXY_CA, isCa: false, subject: [cn("front-proxy-client")], usages: ["clientAuth"], altNames: [], purpose: "API server's client certificate towards aggregated API servers" },
  );
  return plan;
}

/**
 * The asset files that carry a system:masters credential (a certificate in that group, its key, or a
 * kubeconfig embedding them): the administrator's and the API server's client towards kubelets. Only
 * these may; render.test.ts checks every rendered file against it.
 */
export const SYSTEM_MASTERS_ASSETS: readonly string[] = ["auth/kubeconfig", "tls/admin.crt", "tls/admin.key", "tls/apiserver-kubelet-client.crt", "tls/apiserver-kubelet-client.key"];
export const carriesSystemMasters = (assetPath: string): boolean => SYSTEM_MASTERS_ASSETS.includes(assetPath);

export const isCertEntry = (e: PlanEntry): e is CertPlanEntry => !("keyOnly" in e);

export type IssuedCert = { entry: CertPlanEntry; certDer: Buffer; certPem: string; keyPem: string; key: KeyPair };
export type IssuedPki = { certs: Map<string, IssuedCert>; serviceAccount: { keyPem: string; pubPem: string } };

export type IssueOptions = {
  algorithm: EncryptionAlgorithm;
  caValidityDays: number;
  leafValidityDays: number;
  now: Date;
  random: (bytes: number) => Buffer;
  keys?: Record<string, KeyObject | string>;
  importedCa?: ImportedCa;
  /** Certificates reused as they are (a running cluster's PKI), by plan entry name. */
  kept?: ReadonlyMap<string, { certPem: string; keyPem: string }>;
  onStep?: (label: string) => void;
};

/** Five minutes of backdating tolerate small clock skew between the render host and the cluster. */
const BACKDATE_MS = 5 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A random positive serial: 16 bytes, first byte 0x01–0x7f (never 0, bootkube's CA serial). */
export function randomSerial(random: (n: number) => Buffer): Buffer {
  const b = Buffer.from(random(16));
  b[0] = ((b[0] ?? 1) & 0x7f) | 0x01;
  return b;
}

function checkImportedCa(ca: ImportedCa, now: Date): { cert: X509Certificate; der: Buffer; key: KeyPair } {
  let cert: X509Certificate;
  let key: KeyPair;
  try {
    cert = new X509Certificate(ca.certPem);
  } catch {
    throw new RenderOptionsError("the imported CA certificate is not a PEM X.509 certificate");
  }
  try {
    key = keyPairFrom(ca.keyPem);
  } catch {
    throw new RenderOptionsError("the imported CA key is not a PEM private key (unencrypted PKCS#1, SEC1 or PKCS#8)");
  }
  if (!cert.checkPrivateKey(key.privateKey)) throw new RenderOptionsError("the imported CA key does not match the imported CA certificate");
  if (!cert.ca) throw new RenderOptionsError("the imported certificate is not a CA (basicConstraints CA:TRUE missing)");
  if (new Date(cert.validTo) <= now) throw new RenderOptionsError(`the imported CA expired on ${cert.validTo}`);
  const t = key.privateKey.asymmetricKeyType;
  if (t !== "rsa" && t !== "ec") throw new RenderOptionsError(`the imported CA key is ${String(t)}; use RSA or ECDSA`);
  return { cert, der: certificateDer(ca.certPem), key };
}

export async function issueCertificates(plan: PlanEntry[], opts: IssueOptions): Promise<IssuedPki> {
  const imported = opts.importedCa ? checkImportedCa(opts.importedCa, opts.now) : undefined;
  const injected: Record<string, KeyObject | string> = { ...opts.keys };
  if (imported) injected[CA] = imported.key.privateKey;
  const keys = startKeyGeneration(
    keyNames(plan),
    opts.algorithm,
    injected,
    (name) => opts.onStep?.(`key ${name}`),
  );
  const keyOf = (entry: PlanEntry): Promise<KeyPair> => {
    const p = keys.get(entry.name);
    if (!p) throw new Error(`no key planned for ${entry.name}`);
    return p;
  };
  const notBefore = new Date(opts.now.getTime() - BACKDATE_MS);
  const caNotAfter = new Date(opts.now.getTime() + opts.caValidityDays * DAY_MS);
  const endOf = (pem: string) => new Date(new X509Certificate(pem).validTo);

  const certs = new Map<string, Promise<IssuedCert>>();
  const issue = async (entry: CertPlanEntry): Promise<IssuedCert> => {
    const key = await keyOf(entry);
    if (entry.name === CA && imported)
      return { entry, certDer: imported.der, certPem: certificatePem(imported.der), keyPem: privateKeyPem(key.privateKey), key };
    const kept = opts.kept?.get(entry.name);
    if (kept) return { entry, certDer: certificateDer(kept.certPem), certPem: kept.certPem, keyPem: kept.keyPem, key };
    const issuer = entry.issuer ? await certs.get(entry.issuer) : undefined;
    if (entry.issuer && !issuer) throw new Error(`issuer ${entry.issuer} of ${entry.name} is not planned before it`);
    // A leaf never outlives its issuer (matters for an imported CA close to its end, and a kept one).
    const issuerEnd = issuer ? ((issuer.entry.name === CA && imported) || opts.kept?.has(issuer.entry.name) ? endOf(issuer.certPem) : caNotAfter) : caNotAfter;
    const wanted = entry.isCa ? caNotAfter : new Date(opts.now.getTime() + opts.leafValidityDays * DAY_MS);
    const certDer = buildCertificate({
      subject: entry.subject,
      serial: randomSerial(opts.random),
      notBefore,
      notAfter: wanted < issuerEnd ? wanted : issuerEnd,
      publicKey: key.publicKey,
      isCa: entry.isCa,
      usages: entry.usages,
      altNames: entry.altNames,
      issuer: issuer ? { certDer: issuer.certDer } : undefined,
      signingKey: issuer ? issuer.key.privateKey : key.privateKey,
    });
    opts.onStep?.(`certificate ${entry.stem}.crt`);
    return { entry, certDer, certPem: certificatePem(certDer), keyPem: privateKeyPem(key.privateKey), key };
  };
  for (const entry of plan) if (isCertEntry(entry)) certs.set(entry.name, issue(entry));
  // Settle every promise before failing, so no rejection is left unobserved (it would crash the server).
  const saEntry = plan.find((e) => e.name === "service-account");
  if (!saEntry) throw new Error("no service-account key planned");
  const [sa, ...settled] = await Promise.allSettled([keyOf(saEntry), ...certs.values()]);
  const out = new Map<string, IssuedCert>();
  for (const s of settled) {
    if (s.status === "rejected") throw s.reason;
    const issued = s.value as IssuedCert;
    out.set(issued.entry.name, issued);
  }
  if (!sa || sa.status === "rejected") throw sa?.reason ?? new Error("service-account key missing");
  const saKey = sa.value as KeyPair;
  return { certs: out, serviceAccount: { keyPem: privateKeyPem(saKey.privateKey), pubPem: publicKeyPem(saKey.publicKey) } };
}

/** The keys a render of the plan uses, generated or given: one per entry. */
export function keyNames(plan: readonly PlanEntry[]): string[] {
  return plan.map((e) => e.name);
}
