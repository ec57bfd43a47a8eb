// The delivery signature, as GitHub's X-Hub-Signature-256: "sha256=" and the hex HMAC-SHA256 of the
// exact body bytes under the endpoint's secret. `verifySignature` is what a receiver does (the tests
// and docs/notifications.md use it); the comparison takes constant time.
import { createHmac, timingSafeEqual } from "node:crypto";

export function signBody(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

export function verifySignature(secret: string, body: string | Buffer, header: string | null | undefined): boolean {
  if (!header) return false;
  const want = Buffer.from(signBody(secret, body));
  const got = Buffer.from(header);
  return got.length === want.length && timingSafeEqual(got, want);
}
