import { handleLogin } from "@/lib/auth/public-routes";

// POST /api/auth/login — sign in; sets the session cookie.
export const POST = handleLogin;
