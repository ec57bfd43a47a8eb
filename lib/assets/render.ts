// renderAssets: a cluster definition in, every file a self-hosted cluster needs out (bootkube's
// `render`). Validates first and fails whole: a caller never sees partial output.
import { randomBytes, X509Certificate } from "node:crypto";
import { DEFAULT_ENCRYPTION_ALGORITHM, isStaticControlPlane, validateClusterDefinition, type ClusterDefinition, type EncryptionAlgorithm } from "../cluster/definition";
import { deriveCluster } from "../cluster/derive";
import { bootstrapManifests, etcdManifests, staticControlPlaneManifests } from "./bootstrap-manifests";
import { capabilitiesFor, imagesFor } from "./capabilities";
import { apiserverAltNames, CA, certificatePlan, isCertEntry, issueCertificates, keyNames, type CertPlanEntry } from "./certificates";
import { ADMISSION_CONFIG_ASSET, admissionConfig, AUDIT_LOG, AUDIT_POLICY_ASSET, auditPolicy } from "./api-policy";
import { ENCRYPTION_CONFIG_ASSET, encryptionConfig, encryptionPurpose } from "./encryption";
import { ENDPOINT_PATHS, keepalivedConfig, keepalivedUnit, provisionsVip } from "./endpoint";
import { keptCertificateFits } from "./keep";
import { algorithmOf } from "./pki";
import type { ManifestFile, RenderContext } from "./context";
import { kubeconfig } from "./kubeconfig";
import { kubeletConfiguration, kubeletDropIn, kubeletHostEnv, kubeletUnit } from "./kubelet-unit";
import { selfHostedManifests } from "./manifests";
import { authenticationConfig } from "./manifests/flags";
import { containerdConfig, containerdUnit, crictlConfig, modulesConf, registryHost, registryHostsToml, RUNTIME_PATHS, sysctlConf } from "./runtime";
import { generateBootstrapToken, parseBootstrapToken } from "./token";
import { CHECKPOINT_PATHS, checkpointManifest, checkpointScript, checkpointUnit } from "./checkpoint";
import { RenderOptionsError, RenderValidationError, defaultRenderOptions, type KeptPki, type RenderOptions, type RenderedAsset } from "./types";
import { toYamlDocuments } from "./yaml-out";

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

function checkDays(name: string, v: number): number {
  if (!Number.isInteger(v) || v < 1 || v > 36500) throw new RenderOptionsError(`${name} must be a whole number of days from 1 to 36500`);
  return v;
}

type Draft = Omit<RenderedAsset, "mode">;

export async function renderAssets(input: unknown, options: RenderOptions = {}): Promise<RenderedAsset[]> {
  const validation = validateClusterDefinition(input);
  if (!validation.ok) throw new RenderValidationError(validation.errors);
  const def = validation.definition;
  const algorithm = renderAlgorithm(def, options);
  const caValidityDays = checkDays("CA validity", options.caValidityDays ?? defaultRenderOptions.caValidityDays);
  const leafValidityDays = checkDays("certificate validity", options.leafValidityDays ?? defaultRenderOptions.leafValidityDays);
  const now = options.now ?? new Date();
  const random = options.random ?? randomBytes;

  const derived = deriveCluster(def);
  const caps = capabilitiesFor(def.spec.kubernetes.version);
  const plan = certificatePlan(def, derived, caps);
  const kept = options.keep ? keptEntries(plan, options.keep, (entry) => (entry.name === "apiserver" ? apiserverAltNames(def, { ...derived, masters: [] }) : entry.altNames)) : undefined;
  const keys = { ...options.keys, ...kept?.keys };
  // A step per key (generated or given), per certificate, and for the files.
  const total = keyNames(plan).length + plan.filter(isCertEntry).length + 1;
  let done = 0;
  const step = (label: string) => options.onProgress?.(++done, total, label);

  const pki = await issueCertificates(plan, {
    algorithm,
    caValidityDays,
    leafValidityDays,
    now,
    random,
    keys,
    importedCa: options.importedCa,
    kept: kept?.certs,
    onStep: step,
  });
  const token = options.keep ? parseBootstrapToken(options.keep.token) : generateBootstrapToken(random);

  const drafts: Draft[] = [];
  const add = (path: string, content: string, sensitive: boolean, purpose: string) => drafts.push({ path, content, sensitive, purpose });

  for (const entry of plan) {
    if (!isCertEntry(entry)) continue;
    const c = pki.certs.get(entry.name);
    if (!c) throw new Error(`certificate ${entry.name} was not issued`);
    const imported = entry.name === CA && options.importedCa !== undefined;
    add(`${entry.stem}.crt`, c.certPem, false, imported ? "cluster CA (imported)" : entry.purpose);
    add(`${entry.stem}.key`, c.keyPem, true, `private key of ${entry.stem}.crt`);
  }
  add("tls/service-account.key", pki.serviceAccount.keyPem, true, "service-account token signing key (controller-manager and API server)");
  add("tls/service-account.pub", pki.serviceAccount.pubPem, false, "service-account token verification key (API server)");

  const ca = pki.certs.get(CA);
  if (!ca) throw new Error("cluster CA was not issued");
  const cert = (name: string) => {
    const c = pki.certs.get(name);
    if (!c) throw new Error(`certificate ${name} was not issued`);
    return { clientCertPem: c.certPem, clientKeyPem: c.keyPem };
  };
  const kc = (userName: string, user: Parameters<typeof kubeconfig>[0]["user"], server = derived.apiServerUrl) =>
    kubeconfig({ clusterName: def.metadata.name, server, caPem: ca.certPem, userName, user });
  // The bootstrap controller-manager and scheduler run beside the bootstrap API server on the first
  // master: they talk to it on loopback, so a VIP or DNS name that points elsewhere during bootstrap
  // cannot stall them. 127.0.0.1 is in the API server's SANs.
  const loopbackUrl = `https://127.0.0.1:${def.spec.apiEndpoint.port}`;
  add("auth/kubeconfig", kc("admin", cert("admin")), true, "administrator kubeconfig (system:masters; /etc/kubernetes/admin.conf on masters)");
  for (const m of derived.masters)
    add(masterKubeletKubeconfig(m.name), kc(`system:node:${m.name}`, cert(`kubelet-${m.name}`)), true, `kubeconfig of ${m.name}'s kubelet: its own node identity (system:node:${m.name})`);
  add(
    "auth/kubeconfig-kubelet",
    kc("kubelet-bootstrap", { token: token.token }),
    true,
    "kubelet bootstrap kubeconfig: bootstrap-token user that requests the node's client certificate",
  );
  add("auth/kubeconfig-controller-manager", kc("system:kube-controller-manager", cert("controller-manager"), loopbackUrl), true, "controller-manager kubeconfig for the bootstrap control plane (API server on loopback)");
  add("auth/kubeconfig-scheduler", kc("system:kube-scheduler", cert("scheduler"), loopbackUrl), true, "scheduler kubeconfig for the bootstrap control plane (API server on loopback)");
  add(AUDIT_POLICY_ASSET, auditPolicy(), false, `API server audit policy: metadata of every request (bodies only of RBAC changes, never of Secrets) to ${AUDIT_LOG} on each master`);
  add(ADMISSION_CONFIG_ASSET, admissionConfig(def), false, "API server admission configuration: Pod Security Admission's defaults for namespaces without labels of their own, and the events' rate limits");
  add("apiserver/authentication-config.yaml", authenticationConfig(), false, "API server authentication configuration: anonymous requests only on /livez, /readyz and /healthz");
  const encryption = options.keep?.encryptionConfig ?? encryptionConfig({ random, now, writes: options.keep ? "plain" : "encrypted" });
  add(ENCRYPTION_CONFIG_ASSET, encryption, true, encryptionPurpose(encryption));

  const ctx: RenderContext = { def, derived, caps, images: imagesFor(caps, def.spec.images.registry), pki, token, files: new Map(drafts.map((d) => [d.path, d.content])) };
  // A static control plane needs no checkpoint: the kubelets start it from their manifests after any reboot.
  const hostCheckpoint = !isStaticControlPlane(def);
  const manifestFiles: ManifestFile[] = [
    ...bootstrapManifests(ctx),
    ...etcdManifests(ctx, options.joiningMembers ?? []),
    ...selfHostedManifests(ctx),
    ...(hostCheckpoint ? [checkpointManifest(ctx)] : []),
    ...(isStaticControlPlane(def) ? staticControlPlaneManifests(ctx) : []),
  ];
  for (const f of manifestFiles) add(f.path, toYamlDocuments(f.objects), f.sensitive === true, f.purpose);

  add("kubelet/kubelet.service", kubeletUnit(caps), false, "kubelet systemd unit (/etc/systemd/system/kubelet.service), Restart=always");
  add("kubelet/10-bootdeck.conf", kubeletDropIn(), false, "kubelet unit drop-in with the flags valid for this version (kubelet.service.d/10-bootdeck.conf)");
  add("kubelet/config-master.yaml", kubeletConfiguration(caps, def, derived, "master"), false, "KubeletConfiguration for masters (/var/lib/kubelet/config.yaml; registers with the control-plane taint)");
  if (derived.workers.length > 0) add("kubelet/config-worker.yaml", kubeletConfiguration(caps, def, derived, "worker"), false, "KubeletConfiguration for workers (/var/lib/kubelet/config.yaml)");
  if (hostCheckpoint) {
    add("checkpoint/bootdeck-checkpoint", checkpointScript(ctx), false, `the checkpoint watchdog on masters (${CHECKPOINT_PATHS.script})`);
    add("checkpoint/bootdeck-checkpoint.service", checkpointUnit(), false, `its systemd unit (${CHECKPOINT_PATHS.unit})`);
  }
  const registry = def.spec.images.registry;
  add("runtime/containerd-config.toml", containerdConfig(def, ctx.images), false, `containerd configuration (${RUNTIME_PATHS.config}): CRI, ${def.spec.runtime.cgroupDriver} cgroups, sandbox ${ctx.images.pause}`);
  if (def.spec.runtime.source === "mirror") add("runtime/containerd.service", containerdUnit(), false, `containerd systemd unit (${RUNTIME_PATHS.unit}) for the containerd Bootdeck installs`);
  add("runtime/crictl.yaml", crictlConfig(), false, `crictl's configuration (${RUNTIME_PATHS.crictl}): containerd's socket`);
  add("runtime/modules.conf", modulesConf(), false, `kernel modules loaded at boot (${RUNTIME_PATHS.modules})`);
  add("runtime/sysctl.conf", sysctlConf(), false, `sysctls for pod networking (${RUNTIME_PATHS.sysctl})`);
  if (registry) {
    add("runtime/registry-hosts.toml", registryHostsToml(registry, def.spec.images.ca !== undefined), false, `how containerd reaches the image mirror ${registryHost(registry)}`);
    if (def.spec.images.ca) add("runtime/registry-ca.crt", def.spec.images.ca, false, `the image mirror's CA certificate (trusted for ${registryHost(registry)} only)`);
  }
  if (provisionsVip(def)) {
    add("endpoint/keepalived.conf", keepalivedConfig(def), false, `keepalived on the masters: holds the API address ${derived.apiEndpointHost} where an API server answers (${ENDPOINT_PATHS.config})`);
    add("endpoint/bootdeck-keepalived.service", keepalivedUnit(), false, `its systemd unit (${ENDPOINT_PATHS.unit})`);
  }
  for (const h of [...derived.masters, ...derived.workers])
    add(`kubelet/hosts/${h.name}.env`, kubeletHostEnv(h), false, `kubelet settings for ${h.name} (/etc/default/kubelet: node name, IP, labels)`);
  step("manifests");

  const seen = new Set<string>();
  for (const d of drafts) {
    if (seen.has(d.path)) throw new Error(`render: ${d.path} rendered twice`);
    seen.add(d.path);
  }
  return drafts
    .map((d) => ({ path: d.path, content: d.content, mode: FILE_MODE, sensitive: d.sensitive, purpose: d.purpose }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** A master kubelet's kubeconfig in the asset set (its /etc/kubernetes/kubelet.conf). */
export const masterKubeletKubeconfig = (master: string): string => `auth/kubeconfig-kubelet-${master}`;

/**
 * The algorithm of the keys a render generates. With a kept PKI it is the kept cluster CA's (an imported
 * CA's key may be of another kind: then the kept API server certificate's), and another one asked for
 * is refused: moving a running cluster to another algorithm replaces its CAs.
 */
function renderAlgorithm(def: ClusterDefinition, options: RenderOptions): EncryptionAlgorithm {
  const asked = options.encryptionAlgorithm ?? def.spec.pki?.encryptionAlgorithm;
  if (!options.keep) return asked ?? DEFAULT_ENCRYPTION_ALGORITHM;
  const keptAlgorithm = keptPkiAlgorithm(options.keep);
  if (asked && keptAlgorithm && asked !== keptAlgorithm)
    throw new RenderOptionsError(
      `the cluster's PKI is ${keptAlgorithm}; ${asked} would need new CAs (a CA rotation), which a render that keeps the PKI cannot do: keep spec.pki.encryptionAlgorithm at ${keptAlgorithm} (docs/cluster-yaml.md, "Key algorithm")`,
    );
  return keptAlgorithm ?? asked ?? DEFAULT_ENCRYPTION_ALGORITHM;
}

/** The algorithm of a kept PKI: its cluster CA's key, or where that is imported and of another kind, its API server's. */
export function keptPkiAlgorithm(keep: KeptPki): EncryptionAlgorithm | undefined {
  for (const stem of ["tls/ca", "tls/apiserver"]) {
    const c = keep.certs.get(stem);
    const a = c ? algorithmOf(new X509Certificate(c.certPem).publicKey) : undefined;
    if (a) return a;
  }
  return undefined;
}

/**
 * The kept PKI matched to the new plan: every entry with a kept key gets it (so only new hosts get new
 * keys), and the kept certificates that still fit are reused as they are (keyed by entry name).
 */
function keptEntries(plan: ReturnType<typeof certificatePlan>, keep: NonNullable<RenderOptions["keep"]>, required: (entry: CertPlanEntry) => CertPlanEntry["altNames"]) {
  const keys: Record<string, string> = { "service-account": keep.serviceAccount.keyPem };
  const certs = new Map<string, { certPem: string; keyPem: string }>();
  const entries = plan.filter(isCertEntry);
  const byName = new Map(entries.map((e) => [e.name, e]));
  for (const entry of entries) {
    const prev = keep.certs.get(entry.stem);
    if (!prev) continue;
    keys[entry.name] = prev.keyPem;
    // A renewal issues every leaf again (with its kept key); only the CAs stay as they are.
    if (keep.reissue === "leaves" && !entry.isCa) continue;
    const issuer = entry.issuer ? byName.get(entry.issuer) : undefined;
    // A leaf is kept only under a kept issuer: a new CA would not have signed it.
    const issuerPem = issuer ? (certs.has(issuer.name) ? keep.certs.get(issuer.stem)?.certPem : undefined) : undefined;
    if (keptCertificateFits(entry, prev.certPem, issuerPem, required(entry))) certs.set(entry.name, prev);
  }
  return { keys, certs };
}

export { selfHostedObjectsInOrder, kindOrder } from "./manifests";
export { bootstrapSecretFiles, etcdMemberFiles, STATIC_SECRETS_HOST_DIR } from "./bootstrap-manifests";
export { KUBELET_PATHS } from "./kubelet-unit";
