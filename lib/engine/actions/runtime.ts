import "server-only";
// The runtime phase: containerd, runc, crictl and the CNI plugins installed (from the mirror or the
// host's packages), configured from the rendered files, started and checked Ready over CRI. Safe to
// repeat: downloads compare checksums, the uploader writes only changed files, containerd restarts
// only when one did.
import { REGISTRY_AUTH_FILE, registryAuthConfig } from "../../assets/runtime";
import { recordSecretUse } from "../../audit/record";
import { getDb } from "../../db/client";
import { decryptSecret } from "../../secrets/cipher";
import { downloadArgs, runtimeDownloads, runtimeFiles } from "../host-files";
import { runLocked, failure, fileSpecs } from "./bootstrap";
import { DOWNLOAD_SCRIPT, RUNTIME_PACKAGES, RUNTIME_PACKAGES_SCRIPT, RUNTIME_START_SCRIPT } from "./host-scripts";
import { needHost, type Action, type ActionContext } from "./types";

/** The registry credentials drop-in, from the stored password credential (decrypted for this run only). */
async function registryAuthFile(ctx: ActionContext): Promise<{ path: string; content: string; mode: number } | undefined> {
  const def = ctx.resources.definition;
  const auth = def.spec.images.auth;
  const registry = def.spec.images.registry;
  if (!auth || !registry) return undefined;
  const run = await getDb().run.findUnique({ where: { id: ctx.runId }, select: { clusterId: true } });
  const cred = run ? await getDb().credential.findFirst({ where: { clusterId: run.clusterId, name: auth.credential } }) : null;
  if (!cred?.secretCipher) throw new Error(`the image registry's credential "${auth.credential}" has no stored password: edit the cluster and give it`);
  await recordSecretUse({ credentialId: cred.id, credentialName: cred.name, clusterId: run?.clusterId ?? "", runId: ctx.runId, purpose: "image registry" });
  return { path: REGISTRY_AUTH_FILE, content: registryAuthConfig(registry, auth.username, decryptSecret(cred.secretCipher)), mode: 0o600 };
}

export const runtimeActions: Record<string, Action> = {
  async runtime(ctx) {
    const host = needHost(ctx);
    const def = ctx.resources.definition;
    try {
      const notes: string[] = [];
      if (def.spec.runtime.source === "packages") {
        const r = await runLocked(ctx, RUNTIME_PACKAGES_SCRIPT, RUNTIME_PACKAGES);
        notes.push(r.stdout.toString("utf8").includes("present") ? "containerd and runc present" : `installed ${RUNTIME_PACKAGES.join(", ")} from packages`);
      }
      let installed = 0;
      for (const d of runtimeDownloads(def)) {
        const r = await runLocked(ctx, DOWNLOAD_SCRIPT, downloadArgs(d));
        if (r.stdout.toString("utf8").includes("installed")) installed++;
      }
      const files = fileSpecs(ctx, runtimeFiles(def, ctx.resources.assetPaths));
      const auth = await registryAuthFile(ctx);
      const up = await ctx.executor.upload(host.target, auth ? [...files, auth] : files, { step: ctx.planned.key, signal: ctx.signal });
      const r = await runLocked(ctx, RUNTIME_START_SCRIPT, [up.written > 0 || installed > 0 ? "restart" : "keep"]);
      const version = r.stdout.toString("utf8").match(/bootdeck-runtime (\S*) ready/)?.[1];
      notes.push(`${installed} of ${runtimeDownloads(def).length} downloads new`, `${up.written} of ${files.length + (auth ? 1 : 0)} files changed`);
      return { ok: true, summary: `containerd ${version || "(version unknown)"} ready; ${notes.join(", ")}` };
    } catch (err) {
      return failure(err);
    }
  },
};
