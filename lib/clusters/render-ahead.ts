import "server-only";
// Render ahead: when a cluster is saved without an asset set, its first one is rendered in the
// background (RSA keys take seconds), so the first "Bootstrap cluster" does not wait for it. Audited as
// the render it is, on behalf of whoever saved the cluster.
import { recordAudit } from "../audit/record";
import { DEFAULT_RENDER, ensureAssetSet } from "./render-jobs";

export async function renderAhead({ clusterId, user, ip }: { clusterId: string; user: { id: string; username: string }; ip: string | undefined }): Promise<void> {
  const result = await ensureAssetSet({ clusterId });
  if (!result.ready && result.started)
    await recordAudit({ action: "assets.render", userId: user.id, username: user.username, ip, target: clusterId, details: { ...DEFAULT_RENDER, importedCa: false, before: "cluster saved" } });
}
