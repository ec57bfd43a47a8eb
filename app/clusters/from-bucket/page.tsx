import { RestoreFromBucket } from "@/components/clusters/restore-from-bucket";
import { Forbidden } from "@/components/forbidden";
import { requirePagePermission } from "@/app/current-user";

export default async function FromBucketPage() {
  const { user, allowed } = await requirePagePermission("cluster:write");
  if (!allowed) return <Forbidden role={user.role} what="take clusters over from a bucket" />;
  return <RestoreFromBucket />;
}
