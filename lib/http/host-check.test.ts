// The URL a browser is sent back to is the dashboard's as the browser reached it: BOOTDECK_PUBLIC_URL's,
// else the Host it named when the dashboard answers to it, never Next.js's own host name, and HTTPS only
// as a trusted proxy says.
import { afterEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "../env";
import { PEER_HEADER, peerStampValue } from "../client-address";
import { browserUrl } from "./host-check";

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
  resetEnvCache();
});

function env(vars: Record<string, string | undefined>): void {
  for (const [k, v] of Object.entries(vars)) if (v === undefined) delete process.env[k];
  else process.env[k] = v;
  resetEnvCache();
}

// As Next.js hands a route its request: its own host name in the URL, the browser's in Host.
const req = (headers: Record<string, string>) => ({ url: "http://localhost:3217/api/auth/oidc/start?next=%2Fclusters", headers: new Headers(headers) });

describe("browserUrl", () => {
  it("takes the Host the browser named, with path and query", () => {
    env({ BOOTDECK_PUBLIC_URL: undefined, BOOTDECK_TRUSTED_PROXIES: undefined });
    expect(browserUrl(req({ host: "127.0.0.1:3217" }))).toBe("http://127.0.0.1:3217/api/auth/oidc/start?next=%2Fclusters");
  });

  it("keeps its own host for a Host the dashboard does not answer to", () => {
    env({ BOOTDECK_PUBLIC_URL: undefined, BOOTDECK_TRUSTED_PROXIES: undefined });
    expect(new URL(browserUrl(req({ host: "evil.example" }))).host).toBe("localhost:3217");
  });

  it("is BOOTDECK_PUBLIC_URL's origin when set, whatever the request says", () => {
    env({ BOOTDECK_PUBLIC_URL: "https://dash.example.com", BOOTDECK_TRUSTED_PROXIES: undefined });
    expect(browserUrl(req({ host: "127.0.0.1:3217", "x-forwarded-proto": "http" }))).toBe("https://dash.example.com/api/auth/oidc/start?next=%2Fclusters");
  });

  it("says https only when a trusted proxy does", () => {
    env({ BOOTDECK_PUBLIC_URL: undefined, BOOTDECK_TRUSTED_PROXIES: "127.0.0.1" });
    expect(browserUrl(req({ host: "localhost:3217", "x-forwarded-proto": "https" }))).toMatch(/^http:\/\//);
    expect(browserUrl(req({ host: "localhost:3217", "x-forwarded-proto": "https", [PEER_HEADER]: peerStampValue("127.0.0.1") }))).toMatch(/^https:\/\/localhost:3217\//);
  });
});
