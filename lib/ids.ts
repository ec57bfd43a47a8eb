// Prefixed random ids (cl_…, host_…, run_…) so logs and URLs say what they point at.
import { randomBytes } from "node:crypto";

export type IdPrefix = "usr" | "cl" | "host" | "cred" | "as" | "ast" | "run" | "step" | "bk" | "wh" | "whd" | "evt" | "grp" | "kc" | "rep";

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(12).toString("base64url")}`;
}
