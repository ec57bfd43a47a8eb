import { handleLogin } from "@/lib/http/public-routes";

// POST /api/auth/login — sign in; sets the session cookie.
export const POST = handleLogin;
