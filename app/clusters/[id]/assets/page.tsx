import { AssetsTab } from "@/components/assets/assets-tab";
import { can } from "@/lib/auth/roles";
import { requirePageUser } from "../../../current-user";

export default async function ClusterAssetsPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const user = await requirePageUser();
  return <AssetsTab clusterId={id} canRender={can(user.role, "cluster:write")} canDownloadSecrets={can(user.role, "secret:read")} />;
}
