import "server-only";
// The certificate rotation run's actions (plans-certs.ts). Each one pushes what its step carries, then
// waits for the host to serve or use the renewed certificate; the API is probed throughout the steps
// that touch API servers, and the longest gap is reported.
import { X509Certificate } from "node:crypto";
import { servedCertificate } from "../../certs/expiry";
import { parseCertFiles } from "../../certs/files";
import { callBody, plannedCalls, sendPatch } from "./api-calls";
import { readHostCertificates } from "../cert-expiry";
import type { EngineHost } from "../targets";
import { gapText, probeApi } from "./api-probe";
import { failure as fail, plannedFiles, runLocked, runPlanned } from "./bootstrap";
import { moveAddress, rejoinAfterFailure, textOf } from "./day2-kube";
import { parseEtcdHealth } from "./dr-scripts";
import { nodeReady, type NodeLike } from "./kube";
import { needHost, plannedExec, type Action, type ActionContext } from "./types";

const serialOf = (pem: string | Buffer) => new X509Certificate(pem).serialNumber;

/** The step's planned files onto its host, checked against the plan's checksums. */
function uploadPlanned(ctx: ActionContext, host: EngineHost) {
  return ctx.executor.upload(host.target, plannedFiles(ctx), { step: ctx.planned.key, signal: ctx.signal });
}

/** What each master's API port serves now (its serial), through that master. */
async function apiserverSerials(ctx: ActionContext): Promise<Map<string, string>> {
  const port = ctx.resources.definition.spec.apiEndpoint.port;
  const out = new Map<string, string>();
  await Promise.all(
    ctx.resources.masters.map(async (m) => {
      try {
        out.set(m.name, serialOf(await servedCertificate(ctx.executor, m.target, m.address, port)));
      } catch (err) {
        out.set(m.name, `unreachable (${err instanceof Error ? err.message : String(err)})`);
      }
    }),
  );
  return out;
}

const etcdClient = (ctx: ActionContext) => ({ cert: ctx.resources.asset("tls/etcd-client.crt"), key: ctx.resources.asset("tls/etcd-client.key") });

async function leaseRenewedAt(ctx: ActionContext, node: string): Promise<number> {
  const lease = await ctx.resources.api().getJson<{ spec?: { renewTime?: string } }>(`/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${encodeURIComponent(node)}`, ctx.signal);
  return Date.parse(lease?.spec?.renewTime ?? "") || 0;
}

/** The kubelet's client certificate's serial, read by the step's planned "client-cert" command. */
async function kubeletClientSerial(ctx: ActionContext): Promise<string | undefined> {
  const r = await runPlanned(ctx, plannedExec(ctx, "client-cert"), { quiet: true, timeoutMs: 20_000 });
  const pem = [...parseCertFiles(textOf(r)).values()][0];
  return pem ? serialOf(pem) : undefined;
}

export const certActions: Record<string, Action> = {
  /** A member's new etcd pairs; then its client port serves the new serial and every member is healthy. */
  async "etcd-certs"(ctx) {
    const host = needHost(ctx);
    const want = ctx.planned.params?.serial ?? "";
    const members = Number(ctx.planned.params?.members ?? "1");
    try {
      const up = await uploadPlanned(ctx, host);
      await ctx.wait(`${host.address}:2379 serving serial ${want} and ${members} healthy members`, { timeoutMs: 4 * 60_000, intervalMs: 2_000 }, async () => {
        const serial = serialOf(await servedCertificate(ctx.executor, host.target, host.address, 2379, etcdClient(ctx)));
        if (serial !== want) return { ok: false, why: `serves serial ${serial}` };
        const h = parseEtcdHealth(textOf(await runPlanned(ctx, plannedExec(ctx, "status"), { quiet: true, timeoutMs: 30_000 })));
        const healthy = h.members.filter((m) => m.healthy).length;
        return healthy >= members ? { ok: true, value: undefined } : { ok: false, why: `${healthy} of ${members} members healthy` };
      });
      return { ok: true, summary: `${up.written} of ${ctx.planned.files.length} files changed; ${host.address}:2379 serves serial ${want}; ${members} members healthy` };
    } catch (err) {
      return fail(err);
    }
  },

  /** The self-hosted control plane's Secrets from the renewed set (merge patches of their data, as planned). */
  async "update-secrets"(ctx) {
    try {
      const done: string[] = [];
      for (const c of plannedCalls(ctx, "patch")) {
        await sendPatch(ctx, c, { data: (callBody(ctx, c) as { data?: Record<string, string> }).data ?? {} });
        done.push(c.object.name);
      }
      return { ok: true, summary: `Secrets ${done.join(", ")} updated` };
    } catch (err) {
      return fail(err);
    }
  },

  /** The step's files onto its host. */
  async "push-files"(ctx) {
    try {
      const up = await uploadPlanned(ctx, needHost(ctx));
      return { ok: true, summary: `${up.written} of ${ctx.planned.files.length} files changed` };
    } catch (err) {
      return fail(err);
    }
  },

  /** Until every master's API port serves the renewed certificate; the API probed meanwhile. */
  async "apiserver-serial"(ctx) {
    const want = ctx.planned.params?.serial ?? "";
    const probe = probeApi(ctx.resources.api(), ctx.signal);
    const started = Date.now();
    try {
      await ctx.wait(`every API server serving serial ${want}`, { timeoutMs: 5 * 60_000, intervalMs: 2_000 }, async () => {
        const serials = await apiserverSerials(ctx);
        const behind = [...serials].filter(([, s]) => s !== want);
        return behind.length ? { ok: false, why: behind.map(([m, s]) => `${m} serves ${s}`).join("; ") } : { ok: true, value: undefined };
      });
      const p = await probe.stop();
      return { ok: true, summary: `every API server serves serial ${want} after ${((Date.now() - started) / 1000).toFixed(0)} s; ${gapText(p)}`, data: { apiGapS: p.longestGapS, failedProbes: p.failed } };
    } catch (err) {
      await probe.stop();
      return fail(err);
    }
  },

  /** A temporary API server beside the master's own while its control plane restarts; then it goes. */
  async "apiserver-restart"(ctx) {
    const host = needHost(ctx);
    const probe = probeApi(ctx.resources.api(), ctx.signal);
    try {
      // The address leaves first: connections reaching the shared port go to either API server, and
      // the temporary one accepts some before it can answer them. Planned behind a VIP only; says
      // "address release: keepalived inactive, 3 of its sockets reset" and the like.
      const released = await moveAddress(ctx, "release-address");
      await uploadPlanned(ctx, host);
      await ctx.wait(`the temporary API server ready on ${host.name}`, { timeoutMs: 4 * 60_000, intervalMs: 2_000 }, async () => {
        const out = textOf(await runPlanned(ctx, plannedExec(ctx, "temp-ready"), { quiet: true, timeoutMs: 20_000 })).trim();
        return out === "ready" ? { ok: true, value: undefined } : { ok: false, why: "its pod is not ready yet" };
      });
      const restarted = textOf(await runLocked(ctx, plannedExec(ctx, "restart"))).trim().split("\n").filter(Boolean);
      await runLocked(ctx, plannedExec(ctx, "remove"));
      await ctx.wait(`the temporary API server gone from ${host.name}`, { timeoutMs: 2 * 60_000, intervalMs: 2_000 }, async () => {
        const out = textOf(await runPlanned(ctx, plannedExec(ctx, "temp-ready"), { quiet: true, timeoutMs: 20_000 })).trim();
        return out === "waiting" ? { ok: true, value: undefined } : { ok: false, why: "it still runs" };
      });
      const rejoined = await moveAddress(ctx, "rejoin-address");
      const p = await probe.stop();
      const summary = [released, ...restarted, rejoined, gapText(p)].filter(Boolean).join("; ");
      return { ok: true, summary, data: { apiGapS: p.longestGapS, failedProbes: p.failed } };
    } catch (err) {
      await probe.stop();
      await rejoinAfterFailure(ctx);
      return fail(err);
    }
  },

  /** A node's kubelet certificates renewed; then it renews its lease and is Ready (workers: with a client certificate from a new CSR). */
  async "kubelet-certs"(ctx) {
    const host = needHost(ctx);
    try {
      const before = host.role === "worker" ? await kubeletClientSerial(ctx) : undefined;
      if (ctx.planned.files.length) await uploadPlanned(ctx, host);
      await runLocked(ctx, plannedExec(ctx, "renew"));
      const restartedAt = Date.now();
      let after: string | undefined;
      await ctx.wait(`${host.name}'s kubelet back: lease renewed, Ready${host.role === "worker" ? ", a new client certificate" : ""}`, { timeoutMs: 4 * 60_000, intervalMs: 2_000 }, async () => {
        if ((await leaseRenewedAt(ctx, host.name)) <= restartedAt) return { ok: false, why: "its lease was not renewed since the restart" };
        const node = await ctx.resources.api().getJson<NodeLike>(`/api/v1/nodes/${encodeURIComponent(host.name)}`, ctx.signal);
        const r = node ? nodeReady(node) : { ready: false, why: "not registered" };
        if (!r.ready) return { ok: false, why: r.why };
        if (host.role === "worker") {
          after = await kubeletClientSerial(ctx);
          if (!after || after === before) return { ok: false, why: "no new client certificate yet (its CSR is not approved and signed)" };
        }
        return { ok: true, value: undefined };
      });
      return { ok: true, summary: `${host.name} Ready with a new serving certificate${host.role === "worker" ? ` and client certificate ${after} (was ${before ?? "none"})` : " and the renewed kubeconfig"}` };
    } catch (err) {
      return fail(err);
    }
  },

  /** Every host read again: what it serves and holds is the renewed set's, and nothing ends within the warning window. */
  async "certs-verify"(ctx) {
    try {
      const def = ctx.resources.definition;
      const want = new Map<string, string>([[`:${def.spec.apiEndpoint.port}`, ctx.planned.params?.apiserver ?? ""]]);
      const problems: string[] = [];
      let count = 0;
      for (const h of ctx.hosts) {
        const { rows, errors } = await readHostCertificates(ctx.executor, def, h, etcdClient(ctx), { filesArgv: plannedExec(ctx, "certs", h.name).argv, step: ctx.planned.key });
        problems.push(...errors.map((e) => `${h.name}: ${e}`));
        count += rows.length;
        for (const r of rows) {
          if (r.warn) problems.push(`${h.name} ${r.source} ends ${r.notAfter}`);
          const expected = r.source.endsWith(`:${def.spec.apiEndpoint.port}`)
            ? want.get(`:${def.spec.apiEndpoint.port}`)
            : r.source.endsWith(":2379") || r.source === "/etc/kubernetes/etcd/server.crt"
              ? serialOf(ctx.resources.asset(`tls/etcd/server-${h.name}.crt`))
              : r.source === "/etc/kubernetes/etcd/peer.crt"
                ? serialOf(ctx.resources.asset(`tls/etcd/peer-${h.name}.crt`))
                : r.source.endsWith("/apiserver.crt")
                  ? serialOf(ctx.resources.asset("tls/apiserver.crt"))
                  : undefined;
          if (expected && r.serial !== expected) problems.push(`${h.name} ${r.source} has serial ${r.serial}, the renewed set's is ${expected}`);
        }
      }
      if (problems.length) return { ok: false, error: `after the rotation: ${problems.join("; ")}` };
      return { ok: true, summary: `${count} certificates read from ${ctx.hosts.length} hosts: the renewed ones everywhere, none ending within 30 days` };
    } catch (err) {
      return fail(err);
    }
  },
};
