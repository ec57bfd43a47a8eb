// The self-hosted API server's checkpoint on each master. When every master restarts at once, no API
// server is left to give the kubelets their self-hosted control-plane pods (the failure that ended
// self-hosting elsewhere). bootkube's pod-checkpointer copied pods off the kubelet at run time; here
// the checkpoint is rendered with the cluster, reviewed in the plan, and kept on every master:
//   - checkpoint/kube-apiserver.yaml: the same API server as the self-hosted one (image, flags,
//     probes) as a static pod reading its certificates from the host;
//   - bootdeck-checkpoint, a small watchdog under systemd, starts it (copies it into the kubelet's
//     static pod directory) when no API server has answered on the master for a while and the kubelet
//     runs no self-hosted API server pod there, and stops it once the kubelet runs one again, so the
//     self-hosted API server takes its port back, as after the bootstrap's pivot.
import { SECRETS_DIR, securePort, type ManifestFile, type RenderContext } from "./context";
import { apiserverCommand, apiserverProbes, apiserverSecretFiles, podIpEnv } from "./manifests/flags";
import { KUBELET_PATHS } from "./kubelet-unit";

export const CHECKPOINT_PATHS = {
  dir: "/etc/kubernetes/checkpoint",
  manifest: "/etc/kubernetes/checkpoint/kube-apiserver.yaml",
  secrets: "/etc/kubernetes/checkpoint-secrets",
  active: `${KUBELET_PATHS.staticPods}/kube-apiserver-checkpoint.yaml`,
  script: "/usr/local/libexec/bootdeck-checkpoint",
  unit: "/etc/systemd/system/bootdeck-checkpoint.service",
} as const;

/** Seconds without any API server on the master (and none scheduled there) before the checkpoint starts. */
export const CHECKPOINT_GRACE_S = 30;
export const CHECKPOINT_LABEL = "kube-apiserver-checkpoint";

export function checkpointManifest(ctx: RenderContext): ManifestFile {
  return {
    path: "checkpoint/kube-apiserver.yaml",
    purpose: `the API server's checkpoint: a static pod each master starts when no API server answers there (kept in ${CHECKPOINT_PATHS.dir})`,
    objects: [
      {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: CHECKPOINT_LABEL, namespace: "kube-system", labels: { "k8s-app": CHECKPOINT_LABEL, tier: "control-plane" } },
        spec: {
          hostNetwork: true,
          priorityClassName: "system-node-critical",
          containers: [
            {
              name: "kube-apiserver",
              image: ctx.images.apiserver,
              command: apiserverCommand(ctx),
              env: podIpEnv,
              ...apiserverProbes(ctx),
              volumeMounts: [
                { name: "secrets", mountPath: SECRETS_DIR, readOnly: true },
                { name: "ssl-certs-host", mountPath: "/etc/ssl/certs", readOnly: true },
              ],
            },
          ],
          volumes: [
            { name: "secrets", hostPath: { path: CHECKPOINT_PATHS.secrets } },
            { name: "ssl-certs-host", hostPath: { path: "/etc/ssl/certs" } },
          ],
        },
      },
    ],
  };
}

/** Asset path → host path of the certificates the checkpoint reads (the self-hosted API server's Secret, on disk). */
export function checkpointSecretFiles(ctx: Pick<RenderContext, "caps">): Record<string, string> {
  return Object.fromEntries(Object.entries(apiserverSecretFiles(ctx)).map(([rel, asset]) => [asset, `${CHECKPOINT_PATHS.secrets}/${rel}`]));
}

export function checkpointScript(ctx: RenderContext): string {
  return `#!/bin/sh
# Bootdeck: the API server's checkpoint on this master. Starts ${CHECKPOINT_PATHS.active}
# (a static pod of the self-hosted API server) when no API server has answered on :${securePort(ctx)} for
# ${CHECKPOINT_GRACE_S} s and the kubelet runs no self-hosted kube-apiserver pod here; stops it once the kubelet
# runs one again (the self-hosted API server then takes the port, as after the bootstrap's pivot).
set -u
SRC=${CHECKPOINT_PATHS.manifest}
ACTIVE=${CHECKPOINT_PATHS.active}
log() { echo "bootdeck-checkpoint: $*"; }
answers() { curl -sk -o /dev/null --max-time 3 https://127.0.0.1:${securePort(ctx)}/livez; }
selfhosted() { crictl pods -q --state ready --namespace kube-system --label k8s-app=kube-apiserver 2>/dev/null | grep -q .; }
down=0
while :; do
  if [ -f "$ACTIVE" ]; then
    if selfhosted; then rm -f "$ACTIVE"; down=0; log "the self-hosted kube-apiserver pod runs on this node again: checkpoint stopped"; fi
  elif answers || selfhosted; then
    down=0
  else
    down=$((down + 5))
    if [ "$down" -ge ${CHECKPOINT_GRACE_S} ] && [ -f "$SRC" ]; then
      cp "$SRC" "$ACTIVE.tmp" && mv -f "$ACTIVE.tmp" "$ACTIVE"
      log "no API server on :${securePort(ctx)} for $down s and no self-hosted one on this node: checkpoint started"
    fi
  fi
  sleep 5
done
`;
}

export function checkpointUnit(): string {
  return [
    "[Unit]",
    "Description=Bootdeck API server checkpoint (starts a static API server when none is left)",
    "After=kubelet.service",
    "",
    "[Service]",
    `ExecStart=${CHECKPOINT_PATHS.script}`,
    "Restart=always",
    "RestartSec=5",
    "",
    "[Install]",
    "WantedBy=multi-user.target",
    "",
  ].join("\n");
}
