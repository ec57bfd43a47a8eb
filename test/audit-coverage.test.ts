// Every mutation and every download is audited: each mutating handler in app/api/**/route.ts, and
// each GET that answers with an attachment, calls recordAudit (sign-in and sign-out record theirs in
// lib/auth; sign-in settings, personal kubeconfigs and uploaded reports in the lib/ functions that do them). Checked in
// the source so a new route cannot forget it.
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { listApiRoutes } from "./http-helpers";

const delegatesToAuditedLib = /handleLogin|handleLogout|updateAccessSettings\(|issueKubeconfig\(|recordReport\(/;

describe("audit coverage", () => {
  const routes = listApiRoutes().map((r) => ({ ...r, text: readFileSync(r.file, "utf8") }));

  test.each(routes)("$path", ({ text, path }) => {
    const mutates = /export const (POST|PUT|PATCH|DELETE)\b/.test(text);
    const downloads = /content-disposition/i.test(text);
    if (!mutates && !downloads) return;
    expect(/recordAudit\(|recordSecretUse\(/.test(text) || delegatesToAuditedLib.test(text), `${path} mutates or serves a download but records no audit event`).toBe(true);
  });
});
