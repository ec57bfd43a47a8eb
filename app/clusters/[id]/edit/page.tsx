import { notFound } from "next/navigation";
import { ClusterWizard } from "@/components/cluster-wizard/wizard";
import { fromDefinition } from "@/components/cluster-wizard/draft";
import { getClusterOrThrow } from "@/lib/clusters/repository";
import { clusterIdParams } from "@/lib/clusters/schemas";
import { requirePageUser } from "@/app/current-user";
import { can } from "@/lib/auth/roles";

export default async function EditClusterPage({ params }: { params: Promise<{ id: string }> }) {
  const parsed = clusterIdParams.safeParse(await params);
  if (!parsed.success) notFound();
  const user = await requirePageUser();
  if (!can(user.role, "cluster:write")) return <p className="text-sm text-red-600">Your role ({user.role}) may not edit clusters.</p>;
  const cluster = await getClusterOrThrow(parsed.data).catch(() => undefined);
  if (!cluster) notFound();
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">Edit {cluster.name}</h1>
      <ClusterWizard clusterId={cluster.id} initial={fromDefinition(cluster.definition, cluster.credentials)} />
    </div>
  );
}
