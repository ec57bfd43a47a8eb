import { ClusterList } from "@/components/clusters/cluster-list";

export default function ClustersPage() {
  return <ClusterList />;
}
