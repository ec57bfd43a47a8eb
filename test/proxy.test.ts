// proxy.ts, called as Next.js calls it: malformed paths, the pages' headers, HSTS over HTTPS.
import { createRequire } from "node:module";
import { NextRequest } from "next/server";
import { describe, expect, test } from "vitest";
import { proxy } from "../proxy";
import { apiSecurityHeaders, hstsHeader } from "../lib/http/csp";

const req = (url: string, headers: Record<string, string> = {}) => new NextRequest(url, { headers });

describe("proxy", () => {
  test.each(["/api/clusters/%ff", "/api/runs/%E0%A4%A/retry", "/clusters/%", "/%c0%af"])("a malformed %%-escape (%s) is a 400 with the security headers", async (path) => {
    const res = proxy(req(`http://localhost${path}`));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { code: "bad_path", message: "The path has a malformed %-escape" } });
    for (const [k, v] of Object.entries(apiSecurityHeaders)) expect(res.headers.get(k)).toBe(v);
  });

  test("a well-formed escape goes on to the route", () => {
    const res = proxy(req("http://localhost/api/runs/run_AAAAAAAAAAAAAAAA/steps/kubelet%2Fmaster-1/output"));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-middleware-next")).toBe("1");
  });

  test("pages get the nonce'd CSP; API routes keep next.config.js's", () => {
    expect(proxy(req("http://localhost/clusters")).headers.get("content-security-policy")).toMatch(/'nonce-[^']+'/);
    expect(proxy(req("http://localhost/api/clusters")).headers.get("content-security-policy")).toBeNull();
  });

  test("HSTS over HTTPS only, on pages, API answers and 400s alike", () => {
    for (const path of ["/clusters", "/api/clusters", "/api/clusters/%ff"]) {
      expect(proxy(req(`https://dash.example${path}`)).headers.get("strict-transport-security")).toBe(hstsHeader);
      expect(proxy(req(`http://localhost${path}`, { "x-forwarded-proto": "https" })).headers.get("strict-transport-security")).toBe(hstsHeader);
      expect(proxy(req(`http://localhost${path}`)).headers.get("strict-transport-security")).toBeNull();
    }
  });

  test("the API headers proxy.ts sends are next.config.js's", async () => {
    const config = createRequire(import.meta.url)("../next.config.js") as { headers(): Promise<{ headers: { key: string; value: string }[] }[]> };
    const [all] = await config.headers();
    expect(Object.fromEntries(all!.headers.map((h) => [h.key, h.value]))).toEqual(apiSecurityHeaders);
  });
});
