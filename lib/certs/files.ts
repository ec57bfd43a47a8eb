// Reading certificates off a host: the read-only script that prints the certificate part of files, the
// files a host of each role uses live, and the parser of the script's output. No server dependencies:
// the rotation's plan (lib/engine/plans-certs.ts) carries these commands.
import { CHECKPOINT_PATHS } from "../assets/checkpoint";
import { STATIC_SECRETS_HOST_DIR } from "../assets/bootstrap-manifests";
import { isStaticControlPlane, type ClusterDefinition } from "../cluster/definition";
import { shellScript } from "../ssh/quote";

/**
 * Read-only, on a host: the certificate part of each of $@ that exists ("--- path" before each; a
 * kubeconfig gives its client-certificate-data, decoded). Private keys never leave the host: only
 * BEGIN/END CERTIFICATE blocks are printed.
 */
export const CERT_FILES_SCRIPT = `for f in "$@"; do
  [ -f "$f" ] || continue
  echo "--- $f"
  case "$f" in
    *.conf) grep -m1 'client-certificate-data:' "$f" | awk '{print $2}' | base64 -d 2>/dev/null ;;
    *) sed -n '/-----BEGIN CERTIFICATE-----/,/-----END CERTIFICATE-----/p' "$f" ;;
  esac
done
exit 0`;

/** The files read live on a host of this role: what the control plane and the kubelet use. */
export function liveCertificateFiles(def: ClusterDefinition, role: "master" | "worker"): { path: string; what: string }[] {
  const files = [
    { path: "/var/lib/kubelet/pki/kubelet.crt", what: "kubelet serving certificate (self-signed by the kubelet)" },
    { path: "/var/lib/kubelet/pki/kubelet-client-current.pem", what: "kubelet client certificate (through a CSR)" },
  ];
  if (role === "master") {
    const apiserver = isStaticControlPlane(def) ? `${STATIC_SECRETS_HOST_DIR}/apiserver.crt` : `${CHECKPOINT_PATHS.secrets}/apiserver.crt`;
    files.push(
      { path: "/etc/kubernetes/kubelet.conf", what: "kubelet client certificate (the master's kubeconfig: system:node)" },
      { path: "/etc/kubernetes/admin.conf", what: "administrator client certificate (admin.conf: system:masters)" },
      { path: "/etc/kubernetes/etcd/server.crt", what: "etcd serving certificate" },
      { path: "/etc/kubernetes/etcd/peer.crt", what: "etcd peer certificate" },
      { path: apiserver, what: isStaticControlPlane(def) ? "API server certificate (static control plane)" : "API server certificate (its checkpoint's copy)" },
    );
  }
  return files;
}

/** The read-only command that prints the certificates of `paths` (CERT_FILES_SCRIPT). */
export const certFilesArgv = (paths: readonly string[]) => shellScript(CERT_FILES_SCRIPT, [...paths], "bootdeck-certs");

/** The command that reads a host's live certificate files (liveCertificateFiles), as a rotation plans it. */
export const liveCertificatesArgv = (def: ClusterDefinition, role: "master" | "worker") => certFilesArgv(liveCertificateFiles(def, role).map((f) => f.path));

/** The first certificate of each "--- path" section of CERT_FILES_SCRIPT's output. */
export function parseCertFiles(out: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of out.split(/^--- /m).slice(1)) {
    const nl = part.indexOf("\n");
    const path = part.slice(0, nl).trim();
    const pem = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(part.slice(nl + 1))?.[0];
    if (pem) found.set(path, `${pem}\n`);
  }
  return found;
}
