import { ClusterList } from "@/components/clusters/cluster-list";
import { can } from "@/lib/auth/roles";
import { listFleet } from "@/lib/clusters/fleet";
import { requirePageUser } from "../current-user";

// The list comes with the page (the same rows GET /api/clusters gives, which then keeps it fresh): after
// sign-in the clusters are there at once, not a "Loading…" line.
export default async function ClustersPage() {
  const user = await requirePageUser();
  return <ClusterList initial={can(user.role, "cluster:read") ? await listFleet() : undefined} />;
}
