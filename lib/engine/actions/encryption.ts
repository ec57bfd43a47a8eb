import "server-only";
// The encryption key rotation run's actions (plans-encryption.ts): a configuration pushed and seen
// loaded by every API server, every Secret written again, and etcd read to prove where each one is.
// The API is probed while configurations change; an API server reloading its file keeps serving.
import { apiMessage } from "../cluster-api";
import { callBody, pathSegment, plannedCallOn, plannedCalls, sendPatch, sendPatchEach } from "./api-calls";
import { gapText, probeApi } from "./api-probe";
import { failure as fail, plannedFiles, runPlanned } from "./bootstrap";
import { textOf } from "./day2-kube";
import { parseSecretsAtRest } from "./dr-scripts";
import { plannedExec, type Action, type ActionContext } from "./types";

const METRIC = "apiserver_encryption_config_controller_last_config_info";

/**
 * The checksum of the encryption configuration an API server runs with, from its metrics text
 * ("sha256:<hex>" in the `hash` label; the `apiserver_id_hash` label beside it is another hash).
 */
export function loadedConfigHash(metrics: string): string | undefined {
  const labels = new RegExp(`^${METRIC}\\{([^}]*)\\}`, "m").exec(metrics)?.[1];
  return labels ? /(?:^|,)hash="sha256:([0-9a-f]+)"/.exec(labels)?.[1] : undefined;
}

/** What each master's API server reports it runs with, by master; a failure to ask is the reason. */
async function loadedHashes(ctx: ActionContext): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  await Promise.all(
    ctx.resources.masters.map(async (m) => {
      try {
        const r = await ctx.resources.apiAt(m).request("/metrics", { timeoutMs: 30_000, signal: ctx.signal });
        if (r.status !== 200) throw new Error(`GET /metrics: HTTP ${r.status} ${apiMessage(r.body)}`);
        out.set(m.name, loadedConfigHash(r.body) ?? "no encryption configuration in its metrics");
      } catch (err) {
        out.set(m.name, `unreachable (${err instanceof Error ? err.message : String(err)})`);
      }
    }),
  );
  return out;
}

/** Runs the step's "at-rest" command: fails unless every Secret in etcd begins with the key's prefix. */
async function secretsAtRest(ctx: ActionContext): Promise<string> {
  const key = ctx.planned.params?.key ?? "";
  const r = parseSecretsAtRest(textOf(await runPlanned(ctx, plannedExec(ctx, "at-rest"), { quiet: true, timeoutMs: 120_000 })));
  if (!Number.isFinite(r.secrets) || !Number.isFinite(r.withKey)) throw new Error("etcd's Secrets could not be counted (no counts in the output of at-rest)");
  if (r.withKey !== r.secrets) throw new Error(`${r.secrets - r.withKey} of ${r.secrets} Secrets in etcd are not stored with key ${key}: ${r.others.join("; ")}`);
  return `etcd holds all ${r.secrets} Secrets under key ${key}`;
}

type ListedSecret = { metadata: { name: string; namespace: string } };
type SecretList = { metadata?: { continue?: string }; items?: ListedSecret[] };

/** Every Secret of every namespace, 500 at a time (each page decrypted by the API server). */
async function forEachSecretPage(ctx: ActionContext, page: (items: ListedSecret[]) => Promise<void>): Promise<void> {
  let next: string | undefined = "";
  while (next !== undefined) {
    const list: SecretList | undefined = await ctx.resources.api().getJson<SecretList>(`/api/v1/secrets?limit=500${next ? `&continue=${encodeURIComponent(next)}` : ""}`, ctx.signal);
    await page(list?.items ?? []);
    next = list?.metadata?.continue || undefined;
  }
}

export const encryptionActions: Record<string, Action> = {
  /** The configuration onto every master (and into the self-hosted API server's Secret), until every API server has loaded it. */
  async "encryption-config"(ctx) {
    const want = ctx.planned.params?.sha256 ?? "";
    const probe = probeApi(ctx.resources.api(), ctx.signal);
    const started = Date.now();
    try {
      const patches = plannedCalls(ctx, "patch");
      // The Secret first, then the pods that mount it (their kubelets then read the new Secret).
      for (const c of patches.filter((c) => c.object.name !== "*")) await sendPatch(ctx, c, callBody(ctx, c));
      let written = 0;
      for (const m of ctx.resources.masters) written += (await ctx.executor.upload(m.target, plannedFiles(ctx, m.name), { step: ctx.planned.key, signal: ctx.signal })).written;
      let pods = 0;
      for (const c of patches.filter((c) => c.object.name === "*")) pods += await sendPatchEach(ctx, c);
      await ctx.wait(`every API server running the configuration ${want.slice(0, 12)}…`, { timeoutMs: 8 * 60_000, intervalMs: 5_000 }, async () => {
        const behind = [...(await loadedHashes(ctx))].filter(([, h]) => h !== want);
        return behind.length ? { ok: false, why: behind.map(([m, h]) => `${m} runs ${/^[0-9a-f]{64}$/.test(h) ? `${h.slice(0, 12)}…` : h}`).join("; ") } : { ok: true, value: undefined };
      });
      const p = await probe.stop();
      return { ok: true, summary: `${written} of ${ctx.planned.files.length} files changed${patches.length ? `, ${pods} API server pods annotated` : ""}; every API server runs the configuration after ${((Date.now() - started) / 1000).toFixed(0)} s; ${gapText(p)}`, data: { apiGapS: p.longestGapS, failedProbes: p.failed } };
    } catch (err) {
      await probe.stop();
      return fail(err);
    }
  },

  /** Every Secret written back unchanged (the API server encrypts it with the key it now writes with); then etcd read. */
  async "rewrite-secrets"(ctx) {
    try {
      plannedCallOn(ctx, "rewrite", "*");
      const api = ctx.resources.api();
      let rewritten = 0;
      let since = 0;
      await forEachSecretPage(ctx, async (items) => {
        for (const s of items) {
          const path = `/api/v1/namespaces/${pathSegment(s.metadata.namespace)}/secrets/${pathSegment(s.metadata.name)}`;
          // The object as listed, resourceVersion included: written back only if nobody wrote it since.
          const r = await api.request(path, { method: "PUT", body: { apiVersion: "v1", kind: "Secret", ...s }, signal: ctx.signal, timeoutMs: 30_000 });
          if (r.status === 200) rewritten++;
          else if (r.status === 409 || r.status === 404) since++;
          else throw new Error(`writing Secret ${s.metadata.namespace}/${s.metadata.name} back: HTTP ${r.status} ${apiMessage(r.body)}`);
        }
        await ctx.emit("step.progress", { key: ctx.planned.key, message: `${rewritten} Secrets written again${since ? `, ${since} written or deleted meanwhile` : ""}` });
      });
      const atRest = await secretsAtRest(ctx);
      return { ok: true, summary: `${rewritten} Secrets written again (${since} changed or deleted meanwhile, written with the new key already); ${atRest}`, data: { rewritten, since } };
    } catch (err) {
      return fail(err);
    }
  },

  /** Every Secret readable through the API (each decrypted), and etcd holds each under the new key. */
  async "encryption-verify"(ctx) {
    try {
      let read = 0;
      await forEachSecretPage(ctx, async (items) => {
        read += items.length;
      });
      return { ok: true, summary: `${read} Secrets read through the API; ${await secretsAtRest(ctx)}` };
    } catch (err) {
      return fail(err);
    }
  },
};
