// Rendering again for a running cluster: its PKI stays. A host added to the definition gets only what
// it needs (an etcd member's server and peer pair signed by the kept etcd CA, its kubelet settings);
// every CA, key and certificate that still fits is reused byte for byte, so nothing on the running hosts
// changes; a leaf that no longer fits (its subject or a SAN it must carry changed) is issued again with
// its kept key. The API server's certificate must carry the endpoint, loopback and the in-cluster
// names; a master's own address is kept when present but not required (clients reach API servers
// through the endpoint, the `kubernetes` service or loopback), so adding a master does not re-issue
// it. See docs/engine.md, "Adding a host to a running cluster".
import { X509Certificate } from "node:crypto";
import YAML from "yaml";
import type { CertPlanEntry } from "./certificates";
import { ENCRYPTION_CONFIG_ASSET } from "./encryption";
import type { KeptPki } from "./types";
import type { AltName } from "./x509";

/** An asset set without the PKI a running cluster has (never rendered, or not whole). */
export class NothingToKeepError extends Error {}

/** The PKI of a rendered asset set (path → plain content), to keep in a new render. */
export function keptPkiFrom(files: ReadonlyMap<string, string>): KeptPki {
  const certs = new Map<string, { certPem: string; keyPem: string }>();
  for (const [path, certPem] of files) {
    if (!path.startsWith("tls/") || !path.endsWith(".crt")) continue;
    const stem = path.slice(0, -".crt".length);
    const keyPem = files.get(`${stem}.key`);
    if (keyPem) certs.set(stem, { certPem, keyPem });
  }
  const saKey = files.get("tls/service-account.key");
  const saPub = files.get("tls/service-account.pub");
  if (!files.has("tls/ca.crt")) throw new NothingToKeepError("the cluster's asset set has no CA (tls/ca.crt): render the assets and bootstrap the cluster first");
  if (!saKey || !saPub) throw new NothingToKeepError("the asset set has no service-account key pair (tls/service-account.key and .pub): it cannot be kept");
  const kubelet = files.get("auth/kubeconfig-kubelet");
  const token = kubelet ? (YAML.parse(kubelet) as { users?: { user?: { token?: string } }[] }).users?.[0]?.user?.token : undefined;
  if (!token) throw new NothingToKeepError("the asset set has no kubelet bootstrap token (auth/kubeconfig-kubelet): it cannot be kept");
  return { certs, serviceAccount: { keyPem: saKey, pubPem: saPub }, token, encryptionConfig: files.get(ENCRYPTION_CONFIG_ASSET) };
}

const altText = (a: AltName) => ("dns" in a ? `DNS:${a.dns.toLowerCase()}` : `IP Address:${a.ip}`);

/** A certificate's SANs as node prints them, one per entry ("DNS:localhost", "IP Address:127.0.0.1"). */
function sansOf(cert: X509Certificate): Set<string> {
  return new Set(
    (cert.subjectAltName ?? "")
      .split(/,\s*/)
      .filter(Boolean)
      .map((s) => (s.startsWith("DNS:") ? s.toLowerCase().replace(/^dns:/, "DNS:") : s)),
  );
}

const subjectText = (entry: CertPlanEntry) => entry.subject.map((a) => `${a.shortName}=${a.value}`).join("\n");

/**
 * Whether a kept certificate still serves a plan entry: a CA always (the cluster's identity); a leaf
 * when its subject is the entry's, it is signed by the entry's (kept) issuer, and it carries every SAN
 * in `required` (the entry's own SANs unless the caller relaxes them).
 */
export function keptCertificateFits(entry: CertPlanEntry, certPem: string, issuerPem: string | undefined, required: readonly AltName[]): boolean {
  const cert = new X509Certificate(certPem);
  if (entry.isCa) return cert.ca;
  if (cert.subject !== subjectText(entry)) return false;
  if (!issuerPem) return false;
  const issuer = new X509Certificate(issuerPem);
  if (cert.issuer !== issuer.subject || !cert.verify(issuer.publicKey)) return false;
  const have = sansOf(cert);
  return required.every((a) => have.has(altText(a)));
}
