import { ImportCluster } from "@/components/clusters/import-cluster";

export default function ImportPage() {
  return <ImportCluster />;
}
