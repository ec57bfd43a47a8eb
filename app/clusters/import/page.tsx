import { ImportCluster } from "@/components/clusters/import-cluster";
import { Forbidden } from "@/components/forbidden";
import { requirePagePermission } from "@/app/current-user";

export default async function ImportPage() {
  const { user, allowed } = await requirePagePermission("cluster:write");
  if (!allowed) return <Forbidden role={user.role} what="import clusters" />;
  return <ImportCluster />;
}
