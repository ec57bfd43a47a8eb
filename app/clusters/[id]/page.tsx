import { ClusterDetail } from "@/components/clusters/cluster-detail";

export default async function ClusterPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ClusterDetail id={id} />;
}
