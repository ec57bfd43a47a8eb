import { ClusterWizard } from "@/components/cluster-wizard/wizard";
import { emptyDraft } from "@/components/cluster-wizard/draft";

export default function NewClusterPage() {
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">New cluster</h1>
      <ClusterWizard initial={emptyDraft()} />
    </div>
  );
}
