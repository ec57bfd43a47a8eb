// The part of oidc-provider's API the tests use (it ships no type declarations).
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";
  type Client = { grantTypeAllowed(type: string): boolean };
  type Account = { accountId: string; claims(): Promise<Record<string, unknown>> };
  export type Configuration = {
    clients: Record<string, unknown>[];
    claims: Record<string, string[]>;
    features: Record<string, { enabled: boolean }>;
    pkce: { required(): boolean };
    issueRefreshToken(ctx: unknown, client: Client): Promise<boolean>;
    findAccount(ctx: unknown, id: string): Promise<Account | undefined>;
    ttl: Record<string, number>;
  };
  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
