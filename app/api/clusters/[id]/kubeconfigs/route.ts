import { getAccessSettings } from "@/lib/auth/access-settings";
import { clusterIdParams } from "@/lib/clusters/schemas";
import { json, route } from "@/lib/http/route";
import { listLiveKubeconfigs } from "@/lib/kubeconfigs/issue";
import { getClusterOrThrow } from "@/lib/clusters/repository";

// GET /api/clusters/:id/kubeconfigs — the personal kubeconfigs of this cluster that have not expired:
// every one for admins, the caller's own for everyone else.
export const GET = route({ permission: "cluster:read", params: clusterIdParams }, async ({ params, user }) => {
  await getClusterOrThrow(params);
  const all = await listLiveKubeconfigs({ clusterId: params.id });
  const issues = user.role === "admin" ? all : all.filter((k) => k.username === user.username);
  return json({ issues, hours: (await getAccessSettings()).kubeconfigHours, role: user.role });
});
