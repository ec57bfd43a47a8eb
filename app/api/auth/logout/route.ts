import { handleLogout } from "@/lib/auth/public-routes";

// POST /api/auth/logout — end the session.
export const POST = handleLogout;
