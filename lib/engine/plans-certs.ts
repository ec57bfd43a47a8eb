// The certificate rotation run: a renewed asset set (same CAs and keys, every leaf issued again —
// lib/assets/renew.ts) rolled out in an order that keeps the API answering:
//   1. etcd, one member at a time: its new serving and peer pairs (etcd reads them again on every new
//      connection), checked on its client port;
//   2. the API servers' certificates where they read them (the self-hosted one's Secret and every
//      checkpoint's copy, or a static control plane's files);
//   3. every API server serves the new certificate (it reloads its serving pair from disk);
//   4. one master at a time, a temporary API server beside the real one while the real one (and a static
//      controller-manager and scheduler) restart onto their new client certificates;
//   5. the kubelets: masters one at a time, then one worker, then the other workers a quarter at a time;
//      the masters' kubeconfig, a new serving pair, and on workers a new client certificate through a
//      CSR (the bootstrap token it is asked with made valid first);
//   6. everything read again from the hosts and compared with the renewed set.
import { checkpointSecretFiles } from "../assets/checkpoint";
import { BOOTSTRAP_SECRETS_HOST_DIR } from "../assets/context";
import { bootstrapSecretFiles, etcdMemberFiles, KUBELET_PATHS } from "../assets/render";
import { isStaticControlPlane, type ClusterDefinition } from "../cluster/definition";
import { deriveCluster, type EffectiveHost } from "../cluster/derive";
import { certFilesArgv, liveCertificatesArgv } from "../certs/files";
import { shellScript } from "../ssh/quote";
import { ETCD_STATUS_SCRIPT, KUBELET_CERTS_SCRIPT, RESTART_CONTAINERS_SCRIPT, TEMP_APISERVER_READY_SCRIPT } from "./actions/dr-scripts";
import { REMOVE_SCRIPT } from "./actions/host-scripts";
import { CONTROL_PLANE_COMPONENTS } from "./actions/kube";
import { masterKubeconfigFiles, staticControlPlaneFiles, type HostFile } from "./host-files";
import type { PlannedPhase, PlannedStep, RunPlan } from "./plan";
import { exec, filesOf, hostLock, locked, MIN, PlanError, step, tokenPhase, type AssetIndex } from "./plans";
import { addressMoves } from "./plans-endpoint";
import { intoBatches } from "./day2/batches";
import { assetCall, redacted } from "./plan-objects";
const SECRET = 0o600;
/** Workers whose kubelets renew their certificates at once, after the first worker did. */
const KUBELET_WORKER_BATCH = "25%";
const KUBELET_CLIENT_CERT = "/var/lib/kubelet/pki/kubelet-client-current.pem";
const SECRET_MANIFESTS = ["manifests/kube-apiserver-secret.yaml", "manifests/kube-controller-manager-secret.yaml"];

export type RotationInput = {
  assets: AssetIndex;
  /** The renewed set's serial of each certificate a host serves: the API server's, and each member's etcd serving certificate. */
  serials: { apiserver: string; etcd: Record<string, string> };
};

/** The temporary API server a rotation starts beside a master's real one: the bootstrap's, with its secrets. */
export function tempApiserverFiles(assetPaths: readonly string[]): HostFile[] {
  return [
    ...Object.entries(bootstrapSecretFiles(assetPaths)).map(([asset, rel]) => ({ asset, path: `${BOOTSTRAP_SECRETS_HOST_DIR}/${rel}`, mode: SECRET })),
    { asset: "bootstrap-manifests/bootstrap-apiserver.yaml", path: `${KUBELET_PATHS.staticPods}/bootstrap-apiserver.yaml`, mode: 0o644 },
  ];
}

export function buildRotationPlan(def: ClusterDefinition, runId: string, input: RotationInput): RunPlan {
  const derived = deriveCluster(def);
  const masters = derived.masters;
  const hosts: EffectiveHost[] = [...masters, ...derived.workers];
  const paths = [...input.assets.keys()];
  const selfHosted = !isStaticControlPlane(def);
  const files = (list: HostFile[]) => filesOf(list, input.assets);
  const chain = <T extends { key: string }>(items: T[], make: (item: T, after: string[]) => PlannedStep) => items.map((it, i) => make(it, i > 0 ? [items[i - 1]!.key] : []));

  const etcd: PlannedPhase = {
    id: "etcd",
    title: "etcd's serving and peer certificates, one member at a time (etcd reads them on every new connection)",
    steps: chain(
      masters.map((m) => ({ key: `etcd/${m.name}`, m })),
      ({ key, m }, after) =>
        step({
          key,
          phase: "etcd",
          action: "etcd-certs",
          title: `etcd certificates on ${m.name}`,
          host: m.name,
          dependsOn: after,
          files: files(Object.entries(etcdMemberFiles(m.name)).map(([asset, path]) => ({ asset, path, mode: SECRET }))),
          exec: [exec("status", shellScript(ETCD_STATUS_SCRIPT, [], "bootdeck-etcd-status"))],
          checks: [`then until ${m.address}:2379 serves serial ${input.serials.etcd[m.name] ?? "?"} and every member is healthy`],
          params: { serial: input.serials.etcd[m.name] ?? "", members: String(masters.length) },
          timeoutMs: 6 * MIN,
        }),
    ),
  };

  const secretsFiles: HostFile[] = selfHosted
    ? Object.entries(checkpointSecretFiles()).map(([asset, path]) => ({ asset, path, mode: SECRET }))
    : staticControlPlaneFiles(paths).filter((f) => !f.asset.startsWith("static-manifests/"));
  const secrets: PlannedPhase = {
    id: "secrets",
    title: selfHosted ? "The API server's and controller-manager's Secrets, and every master's checkpoint copy" : "The control plane's certificates on every master",
    steps: [
      ...(selfHosted
        ? [
            step({
              key: "secrets/cluster",
              phase: "secrets",
              action: "update-secrets",
              title: "Secrets kube-system/kube-apiserver and kube-controller-manager",
              host: null,
              api: SECRET_MANIFESTS.flatMap((a) =>
                (input.assets.get(a)?.objects ?? []).filter((o) => o.ref.kind === "Secret").map((o) => assetCall("patch", a, o, { body: { data: redacted(o.body).data as Record<string, unknown> }, rule: "a merge patch of its data: the renewed set's" })),
              ),
              checks: ["the kubelets then refresh the files they mount"],
              timeoutMs: 3 * MIN,
            }),
          ]
        : []),
      ...masters.map((m) => step({ key: `secrets/${m.name}`, phase: "secrets", action: "push-files", title: `${selfHosted ? "Checkpoint" : "Control-plane"} certificates on ${m.name}`, host: m.name, files: files(secretsFiles), timeoutMs: 3 * MIN })),
    ],
  };

  const serving: PlannedPhase = {
    id: "serving",
    title: "Every API server serves the renewed certificate (reloaded from disk, no restart)",
    steps: [
      step({
        key: "serving/cluster",
        phase: "serving",
        action: "apiserver-serial",
        title: "API servers serve the new certificate",
        host: null,
        checks: [`until ${masters.map((m) => `${m.address}:${def.spec.apiEndpoint.port}`).join(", ")} serve serial ${input.serials.apiserver}, the API probed meanwhile (deadline 5 min)`],
        params: { serial: input.serials.apiserver },
        timeoutMs: 7 * MIN,
      }),
    ],
  };

  const apps = selfHosted ? ["kube-apiserver"] : CONTROL_PLANE_COMPONENTS.map((c) => c as string);
  const temp = tempApiserverFiles(paths);
  const restart: PlannedPhase = {
    id: "restart",
    title: "One master at a time: a temporary API server beside it while its control plane restarts onto the new client certificates",
    steps: chain(
      masters.map((m) => ({ key: `restart/${m.name}`, m })),
      ({ key, m }, after) => {
        // On the master that holds a VIP, clients would meet the API server that stops: the address moves first.
        const address = addressMoves(def, runId, m);
        return step({
          key,
          phase: "restart",
          action: "apiserver-restart",
          title: `Restart the control plane on ${m.name}`,
          host: m.name,
          dependsOn: after,
          files: files(temp),
          exec: [
            ...address.release,
            exec("temp-ready", shellScript(TEMP_APISERVER_READY_SCRIPT, [], "bootdeck-temp")),
            exec("restart", locked(runId, RESTART_CONTAINERS_SCRIPT, apps)),
            exec("remove", locked(runId, REMOVE_SCRIPT, temp.map((f) => f.path).filter((p) => p.endsWith(".yaml")).concat([BOOTSTRAP_SECRETS_HOST_DIR]))),
            ...address.rejoin,
          ],
          checks: [
            `${address.release.length ? "the master gives up the API address; " : ""}the files start the temporary API server; once it is ready, restart ${apps.join(", ")}; then remove it${address.rejoin.length ? " and take part in the address again" : ""} (the API probed meanwhile)`,
          ],
          timeoutMs: (3 + 6 * apps.length) * MIN, // each restart may wait out the kubelet's back-off (5.5 min)
        });
      },
    ),
  };

  // A kubelet's restart leaves its pods running, so workers need not go one by one: once the first
  // worker came back with its new certificates, the rest go a quarter at a time (at 200 workers, 5
  // batches instead of 200 steps). Each batch waits for the whole batch before it.
  const [firstWorker, ...otherWorkers] = derived.workers;
  const kubeletBatches = [...intoBatches(masters, "1"), ...(firstWorker ? [[firstWorker]] : []), ...intoBatches(otherWorkers, KUBELET_WORKER_BATCH)];
  const kubelets: PlannedPhase = {
    id: "kubelets",
    title: `The kubelets: masters one at a time, then one worker, then the other workers ${KUBELET_WORKER_BATCH} at a time; masters' node kubeconfigs, new serving certificates, new client certificates (workers' through CSRs)`,
    steps: kubeletBatches.flatMap((batch, i) =>
      batch.map((h) => ({ key: `kubelets/${h.name}`, h, after: i > 0 ? kubeletBatches[i - 1]!.map((p) => `kubelets/${p.name}`) : [] })),
    ).map(
      ({ key, h, after }) =>
        step({
          key,
          phase: "kubelets",
          action: "kubelet-certs",
          title: `Kubelet certificates on ${h.name}`,
          host: h.name,
          dependsOn: after,
          // A master's kubelet takes the renewed node certificate from its kubeconfig (its current
          // client certificate is set aside first), then renews it through a CSR as it does in time.
          files: h.role === "master" ? files(masterKubeconfigFiles(h.name)) : [],
          exec: [
            exec("renew", locked(runId, KUBELET_CERTS_SCRIPT, ["client"])),
            // A worker's client certificate, read before and after: a new one comes through a CSR.
            ...(h.role === "worker" ? [exec("client-cert", certFilesArgv([KUBELET_CLIENT_CERT]))] : []),
          ],
          checks: [`then until ${h.name} renews its lease and is Ready${h.role === "worker" ? " with a client certificate from an approved CSR" : ""}`],
          timeoutMs: 5 * MIN,
        }),
    ),
  };

  const verify: PlannedPhase = {
    id: "verify",
    title: "Read every certificate from the hosts again and compare with the renewed set",
    steps: [
      step({
        key: "verify/cluster",
        phase: "verify",
        action: "certs-verify",
        title: "Certificates on the hosts",
        host: null,
        exec: hosts.map((h) => exec("certs", liveCertificatesArgv(def, h.role), { host: h.name })),
        checks: ["what each host serves on the kubelet's port (and a master on the API server's and etcd's), read through a TLS handshake"],
        params: { apiserver: input.serials.apiserver },
        timeoutMs: 3 * MIN,
      }),
    ],
  };

  const missing = [...(selfHosted ? SECRET_MANIFESTS : []), ...temp.map((f) => f.asset)].filter((a) => !input.assets.has(a));
  if (missing.length) throw new PlanError(`the renewed asset set lacks ${missing.join(", ")}`);
  // A worker asks for its new client certificate with the kubelet bootstrap token, which expires a day
  // after it was applied: it is made valid first, as before a join.
  return { runType: "rotate-certs", phases: [etcd, secrets, serving, restart, ...tokenPhase(def, hosts, input.assets), kubelets, verify], lock: hostLock(runId, hosts.map((h) => h.name)) };
}
