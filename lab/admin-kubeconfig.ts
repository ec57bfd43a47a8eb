// A lab cluster's admin kubeconfig, written where a tool outside the product (kubectl, the conformance
// suite, a benchmark) reads it. Test bed only.
import fs from "node:fs";
import { assetOfSet } from "../lib/assets/store";
import { runningAssetSet } from "../lib/db/running-asset-set";

/** The cluster's admin kubeconfig (the rendered auth/kubeconfig of the set it runs), written to `file` (0600). */
export async function writeAdminKubeconfig(clusterId: string, file: string): Promise<void> {
  const setId = await runningAssetSet(clusterId);
  const kubeconfig = setId ? await assetOfSet({ setId, path: "auth/kubeconfig" }) : null;
  if (kubeconfig === null) throw new Error("the cluster has no auth/kubeconfig asset: it was not bootstrapped by Bootdeck");
  fs.writeFileSync(file, kubeconfig, { mode: 0o600 });
}
