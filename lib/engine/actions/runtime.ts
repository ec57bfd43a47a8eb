import "server-only";
// The runtime phase: containerd, runc, crictl and the CNI plugins installed (from the mirror or the
// host's packages), configured from the rendered files, started and checked Ready over CRI. Sends what
// its planned step carries: the packages command, each download, the files, the start command. Safe
// to repeat: downloads compare checksums, the uploader writes only changed files, containerd restarts
// only when what it runs with differs from what it last ran steadily with.
import { registryAuthConfig, RUNTIME_PATHS } from "../../assets/runtime";
import { recordSecretUse } from "../../audit/record";
import { getDb } from "../../db/client";
import { decryptSecret, secretContexts } from "../../secrets/cipher";
import { failure, plannedFiles, runLocked } from "./bootstrap";
import { needHost, plannedExec, plannedExecs, type Action, type ActionContext } from "./types";

/** The registry credentials drop-in's content for each planned file that comes from a credential (decrypted for this run only). */
async function credentialFiles(ctx: ActionContext): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const def = ctx.resources.definition;
  const auth = def.spec.images.auth;
  const registry = def.spec.images.registry;
  const credentialed = ctx.planned.files.filter((x) => x.credential);
  if (!credentialed.length) return out;
  // The drop-in repeats the planned containerd configuration (lib/assets/runtime.ts says why).
  // (Its checksum against the plan is checked with the other files before anything is uploaded.)
  const planned = ctx.planned.files.find((f) => f.path === RUNTIME_PATHS.config && f.asset);
  const config = planned?.asset ? ctx.resources.asset(planned.asset) : undefined;
  if (config === undefined) throw new Error(`${ctx.planned.key}: the plan has no ${RUNTIME_PATHS.config} to add the registry credentials to`);
  for (const f of credentialed) {
    if (!auth || !registry || f.credential !== auth.credential) throw new Error(`${f.path}: the run's definition has no image registry credential "${f.credential}"`);
    const run = await getDb().run.findUnique({ where: { id: ctx.runId }, select: { clusterId: true } });
    const cred = run ? await getDb().credential.findFirst({ where: { clusterId: run.clusterId, name: auth.credential } }) : null;
    if (!cred?.secretCipher) throw new Error(`the image registry's credential "${auth.credential}" has no stored password: edit the cluster and give it`);
    await recordSecretUse({ credentialId: cred.id, credentialName: cred.name, clusterId: run?.clusterId ?? "", runId: ctx.runId, purpose: "image registry" });
    out[f.path] = registryAuthConfig(config, registry, auth.username, decryptSecret(cred.secretCipher, secretContexts.credential(cred.clusterId, cred.name, "secretCipher")));
  }
  return out;
}

export const runtimeActions: Record<string, Action> = {
  async runtime(ctx) {
    const host = needHost(ctx);
    try {
      const notes: string[] = [];
      const packages = plannedExecs(ctx, "packages")[0];
      if (packages) {
        const r = await runLocked(ctx, packages);
        notes.push(r.stdout.toString("utf8").includes("present") ? "containerd and runc present" : "installed containerd and runc from packages");
      }
      const downloads = (ctx.planned.exec ?? []).filter((e) => e.id.startsWith("download "));
      let installed = 0;
      for (const d of downloads) {
        const r = await runLocked(ctx, d);
        if (r.stdout.toString("utf8").includes("installed")) installed++;
      }
      const files = plannedFiles(ctx, host.name, await credentialFiles(ctx));
      const up = await ctx.executor.upload(host.target, files, { step: ctx.planned.key, signal: ctx.signal });
      const r = await runLocked(ctx, plannedExec(ctx, "start"));
      const out = r.stdout.toString("utf8");
      const version = out.match(/bootdeck-runtime (\S*) ready/)?.[1];
      notes.push(`${installed} of ${downloads.length} downloads new`, `${up.written} of ${files.length} files changed`, out.includes("(restarted)") ? "restarted" : "kept running");
      return { ok: true, summary: `containerd ${version || "(version unknown)"} ready; ${notes.join(", ")}` };
    } catch (err) {
      return failure(err);
    }
  },
};
