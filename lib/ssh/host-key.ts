// Host-key fingerprints and pinning (trust on first use; a changed key is refused).
import { createHash } from "node:crypto";

/** OpenSSH's fingerprint of a raw public-key blob: `SHA256:` + unpadded base64 of its SHA-256. */
export function fingerprint(keyBlob: Buffer): string {
  return `SHA256:${createHash("sha256").update(keyBlob).digest("base64").replace(/=+$/, "")}`;
}

export type HostKeyPolicy = {
  /** The fingerprint recorded for this host, if any. */
  pinned?: string;
  /** Called on first contact (no pin) with the offered fingerprint; record it and show it to the admin. */
  onFirstContact?: (fingerprint: string) => void | Promise<void>;
  /** Refuse hosts without a pin instead of trusting on first use. */
  requirePinned?: boolean;
};

export type HostKeyDecision =
  | { accept: true; firstContact: boolean }
  | { accept: false; reason: "changed" | "unpinned" };

export function decideHostKey(policy: HostKeyPolicy, offered: string): HostKeyDecision {
  if (policy.pinned) {
    return normalise(policy.pinned) === offered ? { accept: true, firstContact: false } : { accept: false, reason: "changed" };
  }
  if (policy.requirePinned) return { accept: false, reason: "unpinned" };
  return { accept: true, firstContact: true };
}

// Accept pins written with base64 padding or without the prefix, as admins paste them.
function normalise(pin: string): string {
  const body = pin.trim().replace(/^SHA256:/, "").replace(/=+$/, "");
  return `SHA256:${body}`;
}
