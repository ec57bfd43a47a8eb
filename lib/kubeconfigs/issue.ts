import "server-only";
// Personal, short-lived kubeconfigs. The client certificate names its holder (CN = Bootdeck user name)
// and their role on the cluster as a group (O = bootdeck:<role>), lasts as long as an admin set
// (default 8 h, at most 24 h), and is signed by the cluster CA of the asset set the cluster runs: the
// CA the API server's --client-ca-file already trusts, so nothing on the hosts changes. What the group
// may do is bound by the RBAC objects Bootdeck renders (lib/assets/manifests/user-access.ts). The new
// key comes from node:crypto and is never stored: it leaves in the response only.
import { createPrivateKey, generateKeyPair as generateKeyPairCb, randomBytes, X509Certificate, type KeyObject } from "node:crypto";
import { promisify } from "node:util";
import { recordAudit } from "../audit/record";
import { getAccessSettings } from "../auth/access-settings";
import type { Role } from "../auth/roles";
import { deriveCluster } from "../cluster/derive";
import { validateClusterDefinition } from "../cluster/definition";
import { randomSerial } from "../assets/certificates";
import { kubeconfig } from "../assets/kubeconfig";
import { userGroup } from "../assets/manifests/user-access";
import { buildCertificate, certificateDer, certificatePem } from "../assets/x509";
import { getDb } from "../db/client";
import { AppError, conflict, notFound } from "../http/errors";
import { newId } from "../ids";
import { assetContent } from "../assets/store";
import type { KubeconfigIssueView } from "./schemas";

export type { KubeconfigIssueView };

const generateKeyPair = promisify(generateKeyPairCb);

/** Tolerates a little clock skew between Bootdeck and the API server. */
const BACKDATE_MS = 5 * 60_000;


/** The asset set the cluster runs: that of its newest run that succeeded with one. */
async function runningAssetSet(clusterId: string): Promise<string> {
  const run = await getDb().run.findFirst({
    where: { clusterId, status: "succeeded", assetSetId: { not: null }, type: { notIn: ["reset", "check", "backup"] } },
    orderBy: [{ finishedAt: "desc" }, { createdAt: "desc" }],
    select: { assetSetId: true },
  });
  if (!run?.assetSetId) throw conflict("This cluster has not been bootstrapped by Bootdeck yet: there is no API server to give a kubeconfig for");
  return run.assetSetId;
}

async function clusterCa(assetSetId: string): Promise<{ certPem: string; key: KeyObject }> {
  const rows = await getDb().asset.findMany({ where: { assetSetId, path: { in: ["tls/ca.crt", "tls/ca.key"] } }, select: { id: true, path: true, content: true, sensitive: true } });
  const read = (p: string) => {
    const r = rows.find((x) => x.path === p);
    if (!r) throw conflict(`The cluster's asset set has no ${p}; render its assets again`);
    return assetContent(r);
  };
  return { certPem: read("tls/ca.crt"), key: createPrivateKey(read("tls/ca.key")) };
}

export async function issueKubeconfig(input: {
  clusterId: string;
  user: { id: string; username: string };
  /** The user's role on this cluster (per-cluster mappings included). */
  role: Role;
  ip?: string;
  now?: Date;
}): Promise<{ kubeconfig: string; issue: KubeconfigIssueView; fileName: string }> {
  const now = input.now ?? new Date();
  const db = getDb();
  const cluster = await db.cluster.findUnique({ where: { id: input.clusterId }, select: { id: true, name: true, definition: true } });
  if (!cluster) throw notFound("Cluster");
  const validated = validateClusterDefinition(JSON.parse(cluster.definition) as unknown);
  if (!validated.ok) throw conflict("The cluster's definition does not validate; fix it before downloading a kubeconfig");
  const ca = await clusterCa(await runningAssetSet(cluster.id));
  const caCert = new X509Certificate(ca.certPem);
  const hours = (await getAccessSettings()).kubeconfigHours;
  const notBefore = new Date(now.getTime() - BACKDATE_MS);
  const wanted = new Date(now.getTime() + hours * 3600_000);
  const caEnd = new Date(caCert.validTo);
  if (caEnd <= now) throw new AppError(409, "ca_expired", `The cluster CA expired on ${caCert.validTo}; rotate the cluster's certificates first`);
  const notAfter = wanted < caEnd ? wanted : caEnd;
  const group = userGroup(input.role);
  const { privateKey, publicKey } = await generateKeyPair("ec", { namedCurve: "prime256v1" });
  const serial = randomSerial(randomBytes);
  const der = buildCertificate({
    subject: [
      { shortName: "CN", value: input.user.username },
      { shortName: "O", value: group },
    ],
    serial,
    notBefore,
    notAfter,
    publicKey,
    isCa: false,
    usages: ["clientAuth"],
    altNames: [],
    issuer: { certDer: certificateDer(ca.certPem) },
    signingKey: ca.key,
  });
  const text = kubeconfig({
    clusterName: cluster.name,
    server: deriveCluster(validated.definition).apiServerUrl,
    caPem: ca.certPem,
    userName: input.user.username,
    user: { clientCertPem: certificatePem(der), clientKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }) as string },
  });
  const row = await db.kubeconfigIssue.create({
    data: { id: newId("kc"), clusterId: cluster.id, userId: input.user.id, username: input.user.username, group, role: input.role, serial: serial.toString("hex"), notBefore, notAfter },
  });
  await recordAudit({
    action: "kubeconfig.issue",
    userId: input.user.id,
    username: input.user.username,
    ip: input.ip,
    target: cluster.id,
    details: { serial: row.serial, group, role: input.role, notAfter: notAfter.toISOString() },
  });
  return { kubeconfig: text, issue: view(row), fileName: `${cluster.name}-${input.user.username}.kubeconfig` };
}

function view(r: { id: string; serial: string; username: string; role: string; group: string; notBefore: Date; notAfter: Date; createdAt: Date }): KubeconfigIssueView {
  return { id: r.id, serial: r.serial, username: r.username, role: r.role, group: r.group, notBefore: r.notBefore.toISOString(), notAfter: r.notAfter.toISOString(), createdAt: r.createdAt.toISOString() };
}

/** The cluster's kubeconfigs that have not expired yet, newest first. */
export async function listLiveKubeconfigs({ clusterId, now = new Date() }: { clusterId: string; now?: Date }): Promise<KubeconfigIssueView[]> {
  const rows = await getDb().kubeconfigIssue.findMany({ where: { clusterId, notAfter: { gt: now } }, orderBy: { createdAt: "desc" }, take: 500 });
  return rows.map(view);
}
