// The self-hosted API server's checkpoint on each master. When every master restarts at once, no API
// server is left to give the kubelets their self-hosted control-plane pods (the failure that ended
// self-hosting elsewhere). bootkube's pod-checkpointer copied pods off the kubelet at run time; here
// the checkpoint is rendered with the cluster, reviewed in the plan, and kept on every master:
//   - checkpoint/kube-apiserver.yaml: the same API server as the self-hosted one (image, flags,
//     probes) as a static pod reading its certificates from the host;
//   - bootdeck-checkpoint, a small watchdog under systemd, starts it (copies it into the kubelet's
//     static pod directory) when no API server has answered on the master for a while and no
//     self-hosted API server container runs there, and stops it once one has run there for a while
//     (they share the port meanwhile). Stopping it earlier would deadlock: the self-hosted API server's
//     certificates come from a Secret, which the kubelet can only read through an API server.
import { securePort, type ManifestFile, type RenderContext } from "./context";
import { APISERVER_HOST_PATHS, APISERVER_POD_SELECTOR, apiserverContainer, apiserverSecretFiles } from "./manifests/flags";
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
/** Seconds the self-hosted API server must have run beside the checkpoint before the checkpoint stops. */
export const CHECKPOINT_HANDOVER_S = 30;

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
          containers: [apiserverContainer(ctx)],
          volumes: [{ name: "secrets", hostPath: { path: CHECKPOINT_PATHS.secrets } }, ...APISERVER_HOST_PATHS.volumes],
        },
      },
    ],
  };
}

/** Asset path → host path of the certificates the checkpoint reads (the self-hosted API server's Secret, on disk). */
export function checkpointSecretFiles(): Record<string, string> {
  return Object.fromEntries(Object.entries(apiserverSecretFiles()).map(([rel, asset]) => [asset, `${CHECKPOINT_PATHS.secrets}/${rel}`]));
}

export function checkpointScript(ctx: RenderContext): string {
  return `#!/bin/sh
# Bootdeck: the API server's checkpoint on this master. Starts ${CHECKPOINT_PATHS.active}
# (a static pod of the self-hosted API server) when no API server has answered on :${securePort(ctx)} for
# ${CHECKPOINT_GRACE_S} s and no self-hosted kube-apiserver container runs here; stops it once one has run here for
# ${CHECKPOINT_HANDOVER_S} s (both serve the shared port meanwhile, so the handover has no gap). The self-hosted one
# needs the checkpoint to start at all: its certificates come from a Secret the kubelet reads through an API server.
set -u
SRC=${CHECKPOINT_PATHS.manifest}
ACTIVE=${CHECKPOINT_PATHS.active}
# Written beside it first under a dot name, which the kubelet ignores, then renamed into place.
HIDDEN=${KUBELET_PATHS.staticPods}/.kube-apiserver-checkpoint.yaml.tmp
log() { echo "bootdeck-checkpoint: $*"; }
answers() { curl -sk -o /dev/null --max-time 3 https://127.0.0.1:${securePort(ctx)}/livez; }
selfhosted_running() {
  for pod in $(crictl pods -q --state ready --namespace kube-system --label ${APISERVER_POD_SELECTOR} 2>/dev/null); do
    crictl ps -q --pod "$pod" --state running 2>/dev/null | grep -q . && return 0
  done
  return 1
}
down=0
up=0
while :; do
  if selfhosted_running; then up=$((up + 5)); else up=0; fi
  if [ -f "$ACTIVE" ]; then
    if [ "$up" -ge ${CHECKPOINT_HANDOVER_S} ]; then rm -f "$ACTIVE"; down=0; log "the self-hosted kube-apiserver has run here for $up s: checkpoint stopped"; fi
  elif [ "$up" -gt 0 ] || answers; then
    down=0
  else
    down=$((down + 5))
    if [ "$down" -ge ${CHECKPOINT_GRACE_S} ] && [ -f "$SRC" ]; then
      cp "$SRC" "$HIDDEN" && mv -f "$HIDDEN" "$ACTIVE"
      log "no API server on :${securePort(ctx)} for $down s and no self-hosted one running here: checkpoint started"
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
