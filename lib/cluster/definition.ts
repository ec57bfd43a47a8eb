// The cluster definition: the one schema behind the wizard, the API, `cluster.yaml` and the CLI.
// Browser-safe (no server-only): the wizard runs the same checks to show messages next to fields.
import { z } from "zod";
import { findVersionProfile, versionProblem } from "./versions";
import { isDns1123Label, isDnsName, isIP, isIPv4, looksLikeIPv4 } from "./net-syntax";
import { cidrContains, cidrsOverlap, nthAddress, parseCidr, type Cidr } from "./ip";

export const API_VERSION = "bootdeck.io/v1alpha1";

export const limits = {
  name: 63,
  address: 253,
  user: 32,
  url: 2048,
  hosts: 2000,
  credentials: 64,
  labels: 32,
  labelKey: 317,
  labelValue: 63,
} as const;

const dnsLabel = z
  .string()
  .max(limits.name, `must be at most ${limits.name} characters`)
  .refine(isDns1123Label, "must be a DNS-1123 label: lower-case letters, digits and '-', starting and ending with a letter or digit");

const port = z
  .number({ error: "must be a number" })
  .int("must be a whole number")
  .min(1, "must be from 1 to 65535")
  .max(65535, "must be from 1 to 65535");

const address = z
  .string()
  .min(1, "is required")
  .max(limits.address, `must be at most ${limits.address} characters`)
  .superRefine((s, ctx) => {
    if (isIP(s) || isDnsName(s)) return;
    ctx.addIssue({ code: "custom", message: looksLikeIPv4(s) ? "is not a valid IPv4 address: four numbers from 0 to 255, separated by dots" : "must be an IP address or a DNS name" });
  });

const sshUser = z
  .string()
  .max(limits.user, `must be at most ${limits.user} characters`)
  .regex(/^[a-z_][a-z0-9_-]*\$?$/, "must be a Unix user name (lower-case letters, digits, '_' and '-')");

// Upper-case digests (as some tools print them) are the same checksum: stored in lower case.
const sha256 = z
  .string()
  .transform((s) => (/^[A-Fa-f0-9]{64}$/.test(s.trim()) ? s.trim().toLowerCase() : s))
  .pipe(z.string().regex(/^[a-f0-9]{64}$/, "must be a SHA-256 checksum: 64 hexadecimal characters"));

const cidr = z.string().max(18, "must look like 10.2.0.0/16");

const labelName = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$/;
const labels = z
  .record(z.string(), z.string())
  .superRefine((rec, ctx) => {
    const entries = Object.entries(rec);
    if (entries.length > limits.labels) ctx.addIssue({ code: "custom", message: `at most ${limits.labels} labels` });
    for (const [key, value] of entries) {
      const slash = key.lastIndexOf("/");
      const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
      const name = slash >= 0 ? key.slice(slash + 1) : key;
      const keyOk =
        key.length <= limits.labelKey && labelName.test(name) && (prefix === undefined || isDnsName(prefix));
      if (!keyOk) ctx.addIssue({ code: "custom", path: [key], message: `label key "${clip(key)}" is not a valid Kubernetes label key` });
      if (value !== "" && !(value.length <= limits.labelValue && labelName.test(value)))
        ctx.addIssue({ code: "custom", path: [key], message: `label value "${clip(value)}" is not a valid Kubernetes label value` });
    }
  });

const bastion = z.strictObject({
  address,
  port: port.default(22),
  user: sshUser.optional(),
  credential: dnsLabel.optional(),
});

export const hostRoles = ["master", "worker"] as const;

const host = z.strictObject({
  name: dnsLabel,
  address,
  port: port.optional(),
  role: z.enum(hostRoles, { error: "must be master or worker" }),
  user: sshUser.optional(),
  credential: dnsLabel.optional(),
  labels: labels.optional(),
  bastion: bastion.optional(),
});

export const credentialTypes = ["privateKey", "password", "agent"] as const;

// A credential is referenced by name; its secret never appears here. The CLI may read the secret
// from a file or an environment variable named below; the dashboard stores uploaded secrets encrypted.
const credential = z.strictObject({
  name: dnsLabel,
  type: z.enum(credentialTypes, { error: "must be privateKey, password or agent" }),
  privateKeyFile: z.string().max(4096).optional(),
  passphraseEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, "must be an environment variable name").max(128).optional(),
  passwordEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, "must be an environment variable name").max(128).optional(),
  /** CLI only: a file holding the password (a secrets manager's agent often writes one). */
  passwordFile: z.string().max(4096).optional(),
  fingerprint: z.string().max(128).optional(),
});

export const apiEndpointTypes = ["first-master", "dns", "vip"] as const;
export const networkProviders = ["flannel"] as const;
/**
 * self-hosted: the control plane runs as Kubernetes workloads after the pivot (bootkube's model; each
 * master keeps a checkpoint of the API server for a cold start). static: it ends as kubelet-managed
 * static pods on every master (the Typhoon and Talos model).
 */
export const controlPlaneModes = ["self-hosted", "static"] as const;
export type ControlPlaneMode = (typeof controlPlaneModes)[number];

/** One line per mode, for the wizard and the docs. */
export const controlPlaneModeHelp: Record<ControlPlaneMode, string> = {
  "self-hosted": "Self-hosted: the control plane runs as pods the cluster manages (upgraded like any workload); each master keeps an API server checkpoint for a cold start.",
  static: "Static pods: each master's kubelet runs the control plane from files on the host, so it comes back after any reboot without the cluster's help.",
};

/** The control plane ends as static pods on every master (no pivot to workloads, no checkpoint). */
export const isStaticControlPlane = (def: { spec: { kubernetes: { controlPlane: string } } }) => def.spec.kubernetes.controlPlane === "static";
/**
 * The key algorithm of every key and certificate the cluster's PKI gets, as kubeadm names it
 * (`encryptionAlgorithm`). Unset: ECDSA-P256 for a new cluster; a cluster that already has an asset set
 * keeps the algorithm of that set (RSA-2048 for one rendered before the choice existed).
 */
export const encryptionAlgorithms = ["ECDSA-P256", "ECDSA-P384", "RSA-2048", "RSA-3072", "RSA-4096"] as const;
export type EncryptionAlgorithm = (typeof encryptionAlgorithms)[number];
export const DEFAULT_ENCRYPTION_ALGORITHM: EncryptionAlgorithm = "ECDSA-P256";
/** One line on what each is for: the wizard and docs/cluster-yaml.md show them. */
export const encryptionAlgorithmNotes: Record<EncryptionAlgorithm, string> = {
  "ECDSA-P256": "the default: small keys and certificates, fast handshakes; what Talos and RKE2 use",
  "ECDSA-P384": "for policies that ask for a 192-bit security level (CNSA)",
  "RSA-2048": "for clients that cannot do ECDSA; what clusters made before this choice have; RHEL's FUTURE crypto policy rejects it",
  "RSA-3072": "RSA that RHEL's FUTURE crypto policy and NIST after 2030 accept",
  "RSA-4096": "the largest RSA: slow to generate and to sign with",
};

/** Pod Security Standards' levels, loosest first. */
export const podSecurityLevels = ["privileged", "baseline", "restricted"] as const;
const podSecurityLevel = z.enum(podSecurityLevels, { error: "must be privileged, baseline or restricted" });
/** Pod Security Admission's defaults for namespaces without labels of their own: hardened unless the definition says otherwise. */
export const DEFAULT_POD_SECURITY = { enforce: "baseline", warn: "restricted", audit: "restricted", exemptNamespaces: [] as string[] } as const;
export function podSecurityOf(def: ClusterDefinition): { enforce: PodSecurityLevel; warn: PodSecurityLevel; audit: PodSecurityLevel; exemptNamespaces: string[] } {
  const ps = def.spec.podSecurity;
  const d = DEFAULT_POD_SECURITY;
  return { enforce: ps?.enforce ?? d.enforce, warn: ps?.warn ?? d.warn, audit: ps?.audit ?? d.audit, exemptNamespaces: ps?.exemptNamespaces ?? [...d.exemptNamespaces] };
}
export type PodSecurityLevel = (typeof podSecurityLevels)[number];

export const runtimeSources = ["mirror", "packages"] as const;
export const cgroupDrivers = ["systemd", "cgroupfs"] as const;

const httpUrl = z
  .string()
  .max(limits.url)
  .refine(isMirrorUrl, "must be an http:// or https:// URL without credentials, e.g. https://mirror.example.com/dl.k8s.io/release");

/** A registry host[:port] with an optional path prefix, no scheme: registry.example.com:5000/k8s. */
const registryPrefix = z
  .string()
  .max(limits.address)
  .refine((s) => /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d{1,5})?(\/[a-z0-9._-]+)*$/.test(s) || /^\[[0-9a-f:]+\](:\d{1,5})?(\/[a-z0-9._-]+)*$/.test(s), {
    message: "must be a registry host with an optional port and path, without a scheme, e.g. registry.example.com:5000/k8s",
  });

const pemCertificate = z
  .string()
  .max(64 * 1024, "must be at most 64 KiB")
  .refine((s) => /-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----/.test(s), "must be a PEM certificate (-----BEGIN CERTIFICATE-----)");

export const clusterDefinitionSchema = z.strictObject({
  apiVersion: z.literal(API_VERSION, { error: `must be ${API_VERSION}` }),
  kind: z.literal("Cluster", { error: "must be Cluster" }),
  metadata: z.strictObject({ name: dnsLabel }),
  spec: z.strictObject({
    kubernetes: z.strictObject({
      version: z
        .string()
        .max(32)
        .superRefine((v, ctx) => {
          const problem = findVersionProfile(v) ? undefined : versionProblem(v);
          if (problem) ctx.addIssue({ code: "custom", message: problem });
        }),
      controlPlane: z.enum(controlPlaneModes, { error: "must be self-hosted or static" }).default("self-hosted"),
      /**
       * From 1.35 the kubelet refuses cgroup v1 hosts unless told otherwise. true: run on v1 anyway
       * (preflight warns); false: preflight refuses v1 hosts.
       */
      allowCgroupV1: z.boolean({ error: "must be true or false" }).default(false),
    }),
    pki: z
      .strictObject({
        encryptionAlgorithm: z.enum(encryptionAlgorithms, { error: `must be one of ${encryptionAlgorithms.join(", ")}` }).optional(),
      })
      .optional(),
    /** Pod Security Admission's cluster-wide defaults (docs/cluster-yaml.md, "Pod security"). */
    podSecurity: z
      .strictObject({
        enforce: podSecurityLevel.optional(),
        warn: podSecurityLevel.optional(),
        audit: podSecurityLevel.optional(),
        /** Namespaces no level applies to (kube-system always is). */
        exemptNamespaces: z.array(dnsLabel).max(64, "at most 64 namespaces").optional(),
      })
      .optional(),
    apiEndpoint: z.strictObject({
      type: z.enum(apiEndpointTypes, { error: "must be first-master, dns or vip" }),
      host: z.string().max(limits.address).optional(),
      port: port.default(6443),
      /**
       * Bootdeck provisions the VIP (type vip only): keepalived from the hosts' packages on every master
       * holds it on `interface`, where the API server answers (docs/engine.md, "A stable API address").
       */
      keepalived: z
        .strictObject({
          interface: z.string().max(15).regex(/^[A-Za-z0-9_.:-]+$/, "must be a network interface name such as eth0"),
          /** VRRP's virtual router id: unique among the VRRP routers on that network (1–255). */
          virtualRouterId: z.number({ error: "must be a number" }).int("must be a whole number").min(1, "must be from 1 to 255").max(255, "must be from 1 to 255").default(51),
        })
        .optional(),
    }),
    network: z.strictObject({
      podCidr: cidr,
      serviceCidr: cidr,
      clusterDomain: z
        .string()
        .max(limits.address)
        .refine(isDnsName, "must be a DNS name such as cluster.local")
        .default("cluster.local"),
      dnsServiceIp: z.string().max(15).optional(),
      provider: z.enum(networkProviders, { error: "must be flannel" }).default("flannel"),
      flannel: z
        .strictObject({
          /** The host interface flannel's VXLAN runs over (default: the one with the default route). */
          iface: z.string().max(15).regex(/^[A-Za-z0-9_.:-]+$/, "must be a network interface name such as eth1").optional(),
          /** VXLAN UDP port (flannel's default: 8472, the Linux kernel's). */
          vxlanPort: port.optional(),
        })
        .optional(),
    }),
    binaries: z.strictObject({
      /** Kubernetes' release layout: BASE/<version>/bin/linux/<arch>/<name>, `.sha256` beside each. */
      baseUrl: httpUrl,
      /** Pinned checksums of this version's files; without one, a file's published `.sha256` is used. */
      kubelet: z.strictObject({ sha256 }).optional(),
      kubectl: z.strictObject({ sha256 }).optional(),
    }),
    runtime: z
      .strictObject({
        /** mirror: containerd and runc from `mirrorUrl`; packages: from the host's package manager. crictl and the CNI plugins always come from `mirrorUrl`. */
        source: z.enum(runtimeSources, { error: "must be mirror or packages" }).default("mirror"),
        /** Where GitHub release files are mirrored: URL/<owner>/<repo>/releases/download/<tag>/<file>. */
        mirrorUrl: httpUrl.default("https://github.com"),
        /** Must match how the hosts run: systemd as init, or not (preflight checks). */
        cgroupDriver: z.enum(cgroupDrivers, { error: "must be systemd or cgroupfs" }).default("systemd"),
      })
      .default({ source: "mirror", mirrorUrl: "https://github.com", cgroupDriver: "systemd" }),
    images: z
      .strictObject({
        /** A mirror prefix that replaces the registry of every image Bootdeck renders. */
        registry: registryPrefix.optional(),
        /** The mirror's CA certificate (PEM), when a private CA signed it. */
        ca: pemCertificate.optional(),
        /** Pull credentials: a user and a `password` credential holding the password. */
        auth: z.strictObject({ username: z.string().min(1, "is required").max(256), credential: dnsLabel }).optional(),
      })
      .default({}),
    ssh: z
      .strictObject({
        user: sshUser.default("root"),
        port: port.default(22),
        credential: dnsLabel.optional(),
      })
      .default({ user: "root", port: 22 }),
    credentials: z.array(credential).max(limits.credentials, `at most ${limits.credentials} credentials`).default([]),
    hosts: z.array(host).max(limits.hosts, `at most ${limits.hosts} hosts`),
  }),
});

export type ClusterDefinition = z.output<typeof clusterDefinitionSchema>;
export type ClusterDefinitionInput = z.input<typeof clusterDefinitionSchema>;
export type HostDefinition = ClusterDefinition["spec"]["hosts"][number];
export type CredentialReference = ClusterDefinition["spec"]["credentials"][number];

export type Problem = { path: string; message: string };
export type ValidationResult =
  | { ok: true; definition: ClusterDefinition; warnings: Problem[] }
  | { ok: false; errors: Problem[]; warnings: Problem[] };

/** Formats a zod-style path as `spec.hosts[3].address`. */
export function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(document)";
  return path
    .map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? clip(String(p)) : `.${clip(String(p))}`))
    .join("");
}

function clip(s: string): string {
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}

function isMirrorUrl(s: string): boolean {
  if (/[\s\u0000-\u001f]/.test(s)) return false;
  try {
    const u = new URL(s);
    return (u.protocol === "http:" || u.protocol === "https:") && !u.username && !u.password && u.hostname !== "";
  } catch {
    return false;
  }
}

/**
 * Validates a cluster definition and reports every problem at once, each with its field path:
 * field syntax from the schema, then the rules that relate fields (CIDR overlaps, masters, etcd size,
 * duplicates, references). Cross-field rules run on whatever fields are well-formed, so one bad field
 * does not hide the others' problems.
 */
export function validateClusterDefinition(input: unknown): ValidationResult {
  // reportInput: a field of the wrong type ("22" for a port) is told apart from a missing one.
  const parsed = clusterDefinitionSchema.safeParse(input, { reportInput: true });
  const errors: Problem[] = parsed.success
    ? []
    : parsed.error.issues.map((i) => ({ path: formatPath(i.path), message: issueMessage(i) }));
  const cross = crossCheck(input);
  for (const e of cross.errors) if (!errors.some((x) => x.path === e.path && x.message === e.message)) errors.push(e);
  if (!parsed.success || errors.length > 0) return { ok: false, errors, warnings: cross.warnings };
  return { ok: true, definition: parsed.data, warnings: cross.warnings };
}

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") return `unknown field${issue.keys.length > 1 ? "s" : ""}: ${issue.keys.map(clip).join(", ")}`;
  if (issue.code === "invalid_type" && issue.input === undefined) return "is required";
  if (issue.code === "too_big" && issue.origin === "string") return `must be at most ${String(issue.maximum)} characters`;
  if (issue.code === "invalid_type" && /^Invalid input/.test(issue.message)) return `must be ${article(issue.expected)}`;
  return issue.message;
}

const article = (t: string) => (/^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`);

// ---- cross-field rules, over raw input ----

type Raw = Record<string, unknown>;
const obj = (v: unknown): Raw | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Raw) : undefined);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

function crossCheck(input: unknown): { errors: Problem[]; warnings: Problem[] } {
  const errors: Problem[] = [];
  const warnings: Problem[] = [];
  const spec = obj(obj(input)?.spec);
  if (!spec) return { errors, warnings };
  const network = obj(spec.network);
  const hosts = Array.isArray(spec.hosts) ? spec.hosts.map(obj) : [];

  // Networks: well-formed, disjoint, and the DNS IP where it must be.
  const pod = cidrAt(network?.podCidr, "spec.network.podCidr", errors);
  const svc = cidrAt(network?.serviceCidr, "spec.network.serviceCidr", errors);
  if (pod && svc && cidrsOverlap(pod, svc))
    errors.push({ path: "spec.network.serviceCidr", message: `overlaps the pod CIDR ${pod.text}; pod and service networks must not overlap` });
  const dnsIp = str(network?.dnsServiceIp);
  if (dnsIp !== undefined && svc) {
    if (!isIPv4(dnsIp)) errors.push({ path: "spec.network.dnsServiceIp", message: "must be an IPv4 address" });
    else if (!cidrContains(svc, dnsIp))
      errors.push({ path: "spec.network.dnsServiceIp", message: `must be inside the service CIDR ${svc.text}` });
    else if (dnsIp === nthAddress(svc, 1))
      errors.push({ path: "spec.network.dnsServiceIp", message: `must not be ${dnsIp}: that is the API service IP (first address of the service CIDR)` });
    else if (dnsIp === nthAddress(svc, 0) || dnsIp === nthAddress(svc, 2 ** (32 - svc.prefix) - 1))
      errors.push({ path: "spec.network.dnsServiceIp", message: "must not be the network or broadcast address of the service CIDR" });
  }
  if (svc && 2 ** (32 - svc.prefix) < 16 && dnsIp === undefined)
    errors.push({ path: "spec.network.serviceCidr", message: "is too small: it needs at least 16 addresses (the DNS service IP is its 10th)" });

  // API endpoint: what `host` must be depends on the type.
  const images = obj(spec.images);
  if (images && (images.ca !== undefined || images.auth !== undefined) && !str(images.registry))
    errors.push({ path: "spec.images.registry", message: "is required when a registry CA or credentials are given" });
  const registryCredential = str(obj(images?.auth)?.credential);
  if (registryCredential) {
    const c = (Array.isArray(spec.credentials) ? spec.credentials : []).map(obj).find((x) => str(x?.name) === registryCredential);
    if (!c) errors.push({ path: "spec.images.auth.credential", message: `refers to credential "${clip(registryCredential)}", which is not defined under spec.credentials` });
    else if (str(c.type) !== "password") errors.push({ path: "spec.images.auth.credential", message: `must name a password credential; "${clip(registryCredential)}" is ${str(c.type) ?? "untyped"}` });
  }

  const api = obj(spec.apiEndpoint);
  const apiType = str(api?.type);
  const apiHost = str(api?.host);
  if (apiType === "first-master" && apiHost)
    errors.push({ path: "spec.apiEndpoint.host", message: "must be empty when the endpoint is the first master" });
  if (apiType === "dns" && !(apiHost && isDnsName(apiHost)))
    errors.push({ path: "spec.apiEndpoint.host", message: "must be a DNS name (e.g. api.example.com) for a DNS endpoint" });
  if (api?.keepalived !== undefined && apiType !== "vip")
    errors.push({ path: "spec.apiEndpoint.keepalived", message: "is only for a VIP endpoint (type: vip): keepalived holds that address on the masters" });
  if (apiType === "vip") {
    if (!(apiHost && isIP(apiHost))) errors.push({ path: "spec.apiEndpoint.host", message: "must be an IP address for a VIP or load balancer endpoint" });
    else for (const [c, what] of [[pod, "pod"], [svc, "service"]] as const)
      if (c && cidrContains(c, apiHost)) errors.push({ path: "spec.apiEndpoint.host", message: `is inside the ${what} CIDR ${c.text}` });
  }

  // Hosts: masters, etcd size, duplicates, addresses outside cluster networks, references.
  const credentialNames = new Set(
    (Array.isArray(spec.credentials) ? spec.credentials : []).map((c) => str(obj(c)?.name)).filter((n): n is string => !!n),
  );
  const defaultCredential = str(obj(spec.ssh)?.credential);
  if (defaultCredential && !credentialNames.has(defaultCredential))
    errors.push({ path: "spec.ssh.credential", message: `refers to credential "${clip(defaultCredential)}", which is not defined under spec.credentials` });
  if (Array.isArray(spec.hosts)) {
    const masters = hosts.filter((h) => h?.role === "master").length;
    if (masters === 0) errors.push({ path: "spec.hosts", message: "needs at least one master" });
    else if (masters > 7)
      errors.push({ path: "spec.hosts", message: `has ${masters} masters; etcd runs on every master and more than 7 members slows every write — use 3, 5 or 7` });
    else if (masters % 2 === 0)
      warnings.push({ path: "spec.hosts", message: `has ${masters} masters, an even number of etcd members: it tolerates no more failures than ${masters - 1} would` });
    if (masters > 1 && apiType === "first-master")
      warnings.push({ path: "spec.apiEndpoint.type", message: "with several masters, clients lose the API when the first master is down; prefer a DNS name or a VIP" });
  }
  const seenNames = new Map<string, number>();
  const seenAddresses = new Map<string, number>();
  hosts.forEach((h, i) => {
    if (!h) return;
    const name = str(h.name);
    const addr = str(h.address)?.toLowerCase();
    if (name !== undefined) {
      const first = seenNames.get(name);
      if (first !== undefined) errors.push({ path: `spec.hosts[${i}].name`, message: `duplicates the name of hosts[${first}]` });
      else seenNames.set(name, i);
    }
    if (addr !== undefined) {
      const first = seenAddresses.get(addr);
      if (first !== undefined) errors.push({ path: `spec.hosts[${i}].address`, message: `duplicates the address of hosts[${first}]` });
      else seenAddresses.set(addr, i);
      for (const [c, what] of [[pod, "pod"], [svc, "service"]] as const)
        if (c && cidrContains(c, addr))
          errors.push({ path: `spec.hosts[${i}].address`, message: `is inside the ${what} CIDR ${c.text}; host addresses must be outside the cluster networks` });
    }
    const cred = str(h.credential);
    if (cred && !credentialNames.has(cred))
      errors.push({ path: `spec.hosts[${i}].credential`, message: `refers to credential "${clip(cred)}", which is not defined under spec.credentials` });
    if (!cred && !defaultCredential && Array.isArray(spec.credentials) && credentialNames.size !== 1)
      errors.push({ path: `spec.hosts[${i}].credential`, message: "is required: set it here or as spec.ssh.credential" });
    const bastionCred = str(obj(h.bastion)?.credential);
    if (bastionCred && !credentialNames.has(bastionCred))
      errors.push({ path: `spec.hosts[${i}].bastion.credential`, message: `refers to credential "${clip(bastionCred)}", which is not defined under spec.credentials` });
  });
  return { errors, warnings };
}

function cidrAt(value: unknown, path: string, errors: Problem[]): Cidr | undefined {
  if (typeof value !== "string") return undefined;
  const parsed = parseCidr(value);
  if (typeof parsed === "string") {
    errors.push({ path, message: parsed });
    return undefined;
  }
  return parsed;
}
