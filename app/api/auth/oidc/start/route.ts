import { handleOidcStart } from "@/lib/http/oidc-routes";

// GET /api/auth/oidc/start?next=/page — sign in through the identity provider (redirects there).
export const GET = handleOidcStart;
