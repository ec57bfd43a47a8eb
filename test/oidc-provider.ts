// A real OpenID Connect provider for the tests: panva's oidc-provider (OpenID Certified), on a
// loopback port, with its own login and consent pages. People: "olga" in group ops, "hank" in
// helpdesk, "nina" in no group; their groups can be changed while it runs. `signIn` walks its pages
// over HTTP the way a browser would, for tests without one.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

export type TestClient = { clientId: string; clientSecret: string; redirectUri: string };

export type TestProvider = {
  issuer: string;
  /** The groups a person is in from now on (the next token or userinfo answer says so). */
  setGroups(login: string, groups: string[]): void;
  /** Follows an authorization URL through the provider's login and consent pages as `login`; the callback URL it ends at. */
  signIn(authorizationUrl: string, login: string): Promise<string>;
  stop(): Promise<void>;
};

export const people: Record<string, { groups: string[]; email: string; name: string }> = {
  olga: { groups: ["ops"], email: "olga@example.test", name: "Olga Ops" },
  hank: { groups: ["helpdesk"], email: "hank@example.test", name: "Hank Helpdesk" },
  nina: { groups: [], email: "nina@example.test", name: "Nina Nogroup" },
};

export async function startTestProvider(input: { clients: TestClient[]; port?: number }): Promise<TestProvider> {
  const groups = new Map(Object.entries(people).map(([login, p]) => [login, [...p.groups]]));
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(input.port ?? 0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: input.clients.map((c) => ({
      client_id: c.clientId,
      client_secret: c.clientSecret,
      redirect_uris: [c.redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    })),
    claims: { openid: ["sub"], profile: ["name", "preferred_username", "groups"], email: ["email"] },
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    // Refresh tokens for every code grant (as Okta, Entra ID, Keycloak and Dex issue them to this kind of client).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    async findAccount(_ctx, id) {
      if (!groups.has(id)) return undefined;
      const p = people[id]!;
      return {
        accountId: id,
        claims: async () => ({ sub: id, preferred_username: id, name: p.name, email: p.email, groups: groups.get(id) ?? [] }),
      };
    },
    ttl: { Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, RefreshToken: 3600, Interaction: 600, AuthorizationCode: 60 },
  });
  provider.proxy = false;
  server.on("request", provider.callback());

  return {
    issuer,
    setGroups(login, g) {
      groups.set(login, [...g]);
    },
    async signIn(authorizationUrl, login) {
      const jar = new Map<string, string>();
      const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
      const keep = (res: Response) => {
        for (const c of res.headers.getSetCookie()) {
          const [pair = ""] = c.split(";");
          const i = pair.indexOf("=");
          const name = pair.slice(0, i);
          const value = pair.slice(i + 1);
          if (/expires=thu, 01 jan 1970/i.test(c) || value === "") jar.delete(name);
          else jar.set(name, value);
        }
      };
      let url = authorizationUrl;
      let form: { action: string; body: URLSearchParams } | undefined;
      for (let hop = 0; hop < 20; hop++) {
        const res = form
          ? await fetch(new URL(form.action, issuer), { method: "POST", redirect: "manual", headers: { cookie: cookieHeader(), "content-type": "application/x-www-form-urlencoded" }, body: form.body })
          : await fetch(url, { redirect: "manual", headers: { cookie: cookieHeader() } });
        form = undefined;
        keep(res);
        const location = res.headers.get("location");
        if (location) {
          url = new URL(location, issuer).toString();
          if (!url.startsWith(issuer)) return url; // back to the relying party
          continue;
        }
        const html = await res.text();
        if (res.status !== 200) throw new Error(`the provider answered ${res.status} at ${url}: ${html.slice(0, 300)}`);
        const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
        const prompt = /name="prompt" value="([a-z]+)"/.exec(html)?.[1];
        if (!action || !prompt) throw new Error(`no sign-in form at ${url}`);
        const body = new URLSearchParams({ prompt });
        if (prompt === "login") {
          body.set("login", login);
          body.set("password", "any");
        }
        form = { action: action.replace(/&amp;/g, "&"), body };
      }
      throw new Error("the provider's pages did not end at the relying party within 20 steps");
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
