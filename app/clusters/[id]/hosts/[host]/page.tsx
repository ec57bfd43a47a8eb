import { HostPage } from "@/components/hosts/host-page";

export default async function ClusterHostPage({ params }: { params: Promise<{ id: string; host: string }> }) {
  const { id, host } = await params;
  return <HostPage clusterId={id} host={host} />;
}
