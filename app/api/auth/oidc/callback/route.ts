import { handleOidcCallback } from "@/lib/http/oidc-routes";

// GET /api/auth/oidc/callback — where the identity provider sends the browser back; sets the session cookie.
export const GET = handleOidcCallback;
