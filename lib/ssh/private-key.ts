import "server-only";
// Reads an SSH private key the way the executor will use it, so a key that cannot sign is refused
// when it is stored, not halfway through a bootstrap. Returns the OpenSSH-style fingerprint.
import { utils } from "ssh2";
import { fingerprint } from "./host-key";

export type KeyCheck = { ok: true; fingerprint: string; type: string } | { ok: false; reason: string };

export function checkPrivateKey(pem: string, passphrase?: string): KeyCheck {
  const parsed = utils.parseKey(pem, passphrase || undefined);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || key instanceof Error) {
    const message = key instanceof Error ? key.message : "no key found";
    if (/passphrase|decrypt|bad decrypt|integrity/i.test(message))
      return { ok: false, reason: passphrase ? "the passphrase does not open this key" : "this key is encrypted: give its passphrase" };
    return { ok: false, reason: "is not a private key SSH can use (OpenSSH, PEM/PKCS#1 or PKCS#8; RSA, ECDSA or Ed25519)" };
  }
  if (!key.isPrivateKey()) return { ok: false, reason: "is a public key; paste the private key" };
  return { ok: true, fingerprint: fingerprint(key.getPublicSSH()), type: key.type };
}
