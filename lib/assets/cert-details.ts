// Certificate facts for the Assets tab: subject, SANs, issuer and validity, parsed by Node's X509Certificate.
import { X509Certificate } from "node:crypto";

export type CertificateDetails = {
  subject: string;
  issuer: string;
  serialNumber: string;
  altNames: string[];
  notBefore: string;
  notAfter: string;
  isCa: boolean;
  keyType: string;
  fingerprintSha256: string;
  /** Days from `now` until notAfter (negative once expired). */
  daysLeft: number;
};

// Node prints multi-valued names one attribute a line: join them back as "O=…, CN=…".
const oneLine = (dn: string) => dn.split("\n").filter(Boolean).join(", ");

/** OpenSSL's curve names as NIST's. */
const curveNames: Record<string, string> = { prime256v1: "P-256", secp384r1: "P-384", secp521r1: "P-521" };

export function certificateDetails(pem: string, now: Date = new Date()): CertificateDetails {
  const c = new X509Certificate(pem);
  const notAfter = new Date(c.validTo);
  const key = c.publicKey;
  const keyType =
    key.asymmetricKeyType === "rsa"
      ? `RSA-${key.asymmetricKeyDetails?.modulusLength ?? "?"}`
      : key.asymmetricKeyType === "ec"
        ? `ECDSA ${curveNames[key.asymmetricKeyDetails?.namedCurve ?? ""] ?? key.asymmetricKeyDetails?.namedCurve ?? ""}`
        : String(key.asymmetricKeyType);
  return {
    subject: oneLine(c.subject),
    issuer: oneLine(c.issuer),
    serialNumber: c.serialNumber,
    altNames: (c.subjectAltName ?? "").split(", ").filter(Boolean).map((s) => s.replace(/^IP Address:/, "IP:")),
    notBefore: new Date(c.validFrom).toISOString(),
    notAfter: notAfter.toISOString(),
    isCa: c.ca,
    keyType,
    fingerprintSha256: c.fingerprint256,
    daysLeft: Math.floor((notAfter.getTime() - now.getTime()) / 86_400_000),
  };
}

export const isCertificatePath = (path: string): boolean => path.endsWith(".crt");

/** The facts a reviewer compares between two renders of a certificate, one per line (for diffs). */
export function certificateSummaryText(pem: string): string {
  const d = certificateDetails(pem);
  return [
    `subject: ${d.subject}`,
    `issuer: ${d.issuer}`,
    ...d.altNames.map((n) => `san: ${n}`),
    `notBefore: ${d.notBefore}`,
    `notAfter: ${d.notAfter}`,
    `key: ${d.keyType}${d.isCa ? " (CA)" : ""}`,
    `serial: ${d.serialNumber}`,
    `sha256: ${d.fingerprintSha256}`,
  ].join("\n");
}
