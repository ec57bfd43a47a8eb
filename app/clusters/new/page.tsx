import { ClusterWizard } from "@/components/cluster-wizard/wizard";
import { emptyDraft } from "@/components/cluster-wizard/draft";
import { Forbidden } from "@/components/forbidden";
import { requirePagePermission } from "@/app/current-user";

export default async function NewClusterPage() {
  const { user, allowed } = await requirePagePermission("cluster:write");
  if (!allowed) return <Forbidden role={user.role} what="create clusters" />;
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">New cluster</h1>
      <ClusterWizard initial={emptyDraft()} />
    </div>
  );
}
