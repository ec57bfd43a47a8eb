import { handleLogout } from "@/lib/http/public-routes";

// POST /api/auth/logout — end the session.
export const POST = handleLogout;
