// Minimal X.509 v3 certificate builder: node-forge encodes the ASN.1 (names, extensions), Node's
// native crypto signs. Why not forge alone: forge can only hold RSA public keys and signs in pure
// JavaScript (tens of ms per RSA-2048 signature); why not @peculiar/x509: it needs WebCrypto key
// imports and reflect-metadata for a job this small. Embedding the SubjectPublicKeyInfo DER that
// Node exports and signing with crypto.sign gives RSA and ECDSA from one code path, natively fast.
import { createHash, sign, type KeyObject } from "node:crypto";
import forge from "node-forge";

const asn1 = forge.asn1;
type Asn1 = forge.asn1.Asn1;
// Both exist in node-forge 1.x; @types/node-forge lacks the options form and the extensions encoder.
const fromDer = asn1.fromDer as unknown as (der: string, options: { decodeBitStrings: boolean }) => Asn1;
const extensionsToAsn1 = (forge.pki as unknown as { certificateExtensionsToAsn1(exts: unknown[]): Asn1 }).certificateExtensionsToAsn1;

const OID = {
  sha256WithRSA: "1.2.840.113549.1.1.11",
  ecdsaWithSHA256: "1.2.840.10045.4.3.2",
  ecdsaWithSHA384: "1.2.840.10045.4.3.3",
  ecdsaWithSHA512: "1.2.840.10045.4.3.4",
  subjectKeyIdentifier: "2.5.29.14",
  authorityKeyIdentifier: "2.5.29.35",
} as const;

export type NameAttr = { shortName: "CN" | "O" | "OU"; value: string };
export type AltName = { dns: string } | { ip: string };
export type Usage = "serverAuth" | "clientAuth";

export type CertificateSpec = {
  subject: NameAttr[];
  /** Positive serial number as bytes (first byte 0x01–0x7f so the DER INTEGER is minimal and positive). */
  serial: Buffer;
  notBefore: Date;
  notAfter: Date;
  publicKey: KeyObject;
  isCa: boolean;
  usages: Usage[];
  altNames: AltName[];
  /** The issuer; omit for a self-signed CA (then `signingKey` is the subject's own private key). */
  issuer?: { certDer: Buffer };
  signingKey: KeyObject;
};

const bin = (b: Buffer): string => b.toString("binary");
const buf = (s: string): Buffer => Buffer.from(s, "binary");
const seq = (v: Asn1[]): Asn1 => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, v);
const oid = (o: string): Asn1 => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(o).getBytes());

/**
 * The signature algorithm for a signing key, as Go's crypto/x509 (and so kubeadm) picks it: SHA-256
 * with RSA of any size; ECDSA with the hash that matches the curve (P-256: SHA-256, P-384: SHA-384,
 * P-521: SHA-512, the last only for an imported CA).
 */
function signatureAlgorithm(signingKey: KeyObject): { hash: "sha256" | "sha384" | "sha512"; identifier: () => Asn1 } {
  const type = signingKey.asymmetricKeyType;
  if (type === "rsa") return { hash: "sha256", identifier: () => seq([oid(OID.sha256WithRSA), asn1.create(asn1.Class.UNIVERSAL, asn1.Type.NULL, false, "")]) };
  if (type === "ec") {
    const curve = signingKey.asymmetricKeyDetails?.namedCurve;
    const [hash, id] = curve === "secp384r1" ? (["sha384", OID.ecdsaWithSHA384] as const) : curve === "secp521r1" ? (["sha512", OID.ecdsaWithSHA512] as const) : (["sha256", OID.ecdsaWithSHA256] as const);
    // RFC 5758: ECDSA algorithm identifiers carry no parameters.
    return { hash, identifier: () => seq([oid(id)]) };
  }
  throw new Error(`cannot sign with a ${String(type)} key; use RSA or ECDSA`);
}

function time(d: Date): Asn1 {
  // RFC 5280: UTCTime through 2049, GeneralizedTime from 2050 (a 30-year CA crosses it).
  return d.getUTCFullYear() < 2050
    ? asn1.create(asn1.Class.UNIVERSAL, asn1.Type.UTCTIME, false, asn1.dateToUtcTime(d))
    : asn1.create(asn1.Class.UNIVERSAL, asn1.Type.GENERALIZEDTIME, false, asn1.dateToGeneralizedTime(d));
}

/** RFC 5280 method 1: SHA-1 of the subjectPublicKey BIT STRING contents. */
export function keyIdentifier(publicKey: KeyObject): Buffer {
  const spki = spkiAsn1(publicKey);
  const bits = (spki.value as Asn1[])[1]?.value;
  if (typeof bits !== "string") throw new Error("unexpected SubjectPublicKeyInfo");
  return createHash("sha1").update(buf(bits.slice(1))).digest(); // drop the unused-bits byte
}

// Bit strings stay opaque: forge would otherwise parse the RSA key inside and re-encode it.
function spkiAsn1(publicKey: KeyObject): Asn1 {
  return fromDer(bin(publicKey.export({ type: "spki", format: "der" })), { decodeBitStrings: false });
}

function tbsOf(certDer: Buffer): Asn1[] {
  const cert = fromDer(bin(certDer), { decodeBitStrings: false });
  const tbs = (cert.value as Asn1[])[0];
  if (!tbs || !Array.isArray(tbs.value)) throw new Error("not an X.509 certificate");
  return tbs.value;
}

/** The subject Name of a certificate, as encoded (so an imported CA's name is reused byte for byte). */
function subjectOf(certDer: Buffer): Asn1 {
  const tbs = tbsOf(certDer);
  const subject = tbs[tbs[0]?.tagClass === asn1.Class.CONTEXT_SPECIFIC ? 5 : 4];
  if (!subject) throw new Error("certificate has no subject");
  return subject;
}

/** The subjectKeyIdentifier extension value of a certificate, if it has one. */
export function subjectKeyIdentifierOf(certDer: Buffer): Buffer | undefined {
  const exts = tbsOf(certDer).find((n) => n.tagClass === asn1.Class.CONTEXT_SPECIFIC && n.type === 3);
  const list = (exts?.value as Asn1[] | undefined)?.[0]?.value as Asn1[] | undefined;
  for (const ext of list ?? []) {
    const parts = ext.value as Asn1[];
    if (parts[0] && asn1.derToOid(parts[0].value as string) === OID.subjectKeyIdentifier) {
      const octets = parts[parts.length - 1]?.value;
      if (typeof octets !== "string") return undefined;
      const inner = asn1.fromDer(octets).value;
      return typeof inner === "string" ? buf(inner) : undefined;
    }
  }
  return undefined;
}

function keyIdExtension(id: string, value: Asn1): Asn1 {
  return seq([oid(id), asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, asn1.toDer(value).getBytes())]);
}

/** Builds, signs and DER-encodes a certificate. */
export function buildCertificate(spec: CertificateSpec): Buffer {
  const forgeCert = forge.pki.createCertificate();
  forgeCert.setSubject(spec.subject.map((a) => ({ shortName: a.shortName, value: a.value })));
  const subjectName = forge.pki.distinguishedNameToAsn1(forgeCert.subject);
  const issuerName = spec.issuer ? subjectOf(spec.issuer.certDer) : subjectName;

  const extensions: Record<string, unknown>[] = [
    { name: "basicConstraints", cA: spec.isCa, critical: true },
    spec.isCa
      ? { name: "keyUsage", critical: true, keyCertSign: true, cRLSign: true, digitalSignature: true }
      : // RSA key exchange needs keyEncipherment; ECDSA keys only sign.
        { name: "keyUsage", critical: true, digitalSignature: true, keyEncipherment: spec.publicKey.asymmetricKeyType === "rsa" },
  ];
  if (spec.usages.length > 0)
    extensions.push({ name: "extKeyUsage", serverAuth: spec.usages.includes("serverAuth"), clientAuth: spec.usages.includes("clientAuth") });
  if (spec.altNames.length > 0)
    extensions.push({
      name: "subjectAltName",
      altNames: spec.altNames.map((n) => ("dns" in n ? { type: 2, value: n.dns } : { type: 7, ip: n.ip })),
    });
  forgeCert.setExtensions(extensions);
  const extSeq = extensionsToAsn1(forgeCert.extensions);
  const list = (extSeq.value as Asn1[])[0]?.value as Asn1[];
  const ski = keyIdentifier(spec.publicKey);
  list.push(keyIdExtension(OID.subjectKeyIdentifier, asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, bin(ski))));
  // The authority key id must equal the issuer's subject key id, or OpenSSL rejects the chain.
  const aki = spec.issuer ? (subjectKeyIdentifierOf(spec.issuer.certDer) ?? keyIdentifier(spec.signingKey)) : ski;
  list.push(keyIdExtension(OID.authorityKeyIdentifier, seq([asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, false, bin(aki))])));

  const algorithm = signatureAlgorithm(spec.signingKey);
  const tbs = seq([
    asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, [asn1.create(asn1.Class.UNIVERSAL, asn1.Type.INTEGER, false, asn1.integerToDer(2).getBytes())]),
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.INTEGER, false, bin(spec.serial)),
    algorithm.identifier(),
    issuerName,
    seq([time(spec.notBefore), time(spec.notAfter)]),
    subjectName,
    spkiAsn1(spec.publicKey),
    extSeq,
  ]);
  const tbsDer = buf(asn1.toDer(tbs).getBytes());
  // Node signs ECDSA as a DER Ecdsa-Sig-Value, which is what X.509 expects.
  const signature = sign(algorithm.hash, tbsDer, spec.signingKey);
  const cert = seq([
    tbs,
    algorithm.identifier(),
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.BITSTRING, false, `\u0000${bin(signature)}`),
  ]);
  return buf(asn1.toDer(cert).getBytes());
}

export function certificatePem(der: Buffer): string {
  const b64 = der.toString("base64").replace(/(.{64})/g, "$1\n").replace(/\n$/, "");
  return `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`;
}

export function certificateDer(pem: string): Buffer {
  const m = /-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/.exec(pem);
  if (!m?.[1]) throw new Error("no PEM certificate found");
  return Buffer.from(m[1].replace(/\s+/g, ""), "base64");
}
