import type { ReactNode } from "react";
import { CurrentUserProvider } from "@/components/current-user";
import { roleOnCluster } from "@/lib/auth/cluster-role";
import { requirePageUser, shellUser } from "../../current-user";

// A cluster's pages hide and show what the user's role on this cluster allows (a per-cluster mapping
// of their groups may raise it); the routes decide the same way (lib/http/route.ts).
export default async function ClusterLayout({ children, params }: { children: ReactNode; params: Promise<{ id: string }> }) {
  const user = await requirePageUser();
  const { id } = await params;
  const role = await roleOnCluster(user, id);
  return <CurrentUserProvider user={{ ...shellUser(user), role }}>{children}</CurrentUserProvider>;
}
