import "server-only";
// The hardening summary of the asset set a cluster runs. The encryption configuration is opened here,
// on the server, to name its first key; only that name and its date leave this module.
import { parse } from "yaml";
import { z } from "zod";
import { ADMISSION_CONFIG_ASSET, AUDIT_POLICY_ASSET } from "../assets/api-policy";
import { ENCRYPTION_CONFIG_ASSET, encryptionWrites, keyMadeOn } from "../assets/encryption";
import { assetContent } from "../assets/store";
import { podSecurityLevels } from "../cluster/definition";
import { getDb } from "../db/client";
import { runningAssetSet } from "../db/running-asset-set";
import type { Hardening } from "./schemas";
import { clusterMustExist } from "../clusters/exists";

/** The control-plane manifests whose command lines are read, in either mode. */
const CONTROL_PLANE_MANIFEST = /^(manifests|static-manifests)\/kube-(apiserver|controller-manager|scheduler)\.yaml$/;

const level = z.enum(podSecurityLevels);
// Each plugin's configuration is its own: only PodSecurity's is read here.
const admissionSchema = z.object({ plugins: z.array(z.object({ name: z.string(), configuration: z.unknown().optional() })) });
const podSecuritySchema = z.object({ defaults: z.object({ enforce: level, warn: level, audit: level }), exemptions: z.object({ namespaces: z.array(z.string()).default([]) }) });

/** From the set's files (plain content by path): what is on, with what. */
export function hardeningOf(files: ReadonlyMap<string, string>, assetSetVersion: number | null, now = new Date()): Hardening {
  const commandLines = [...files].filter(([p]) => CONTROL_PLANE_MANIFEST.test(p)).map(([, c]) => c);
  const flag = (name: string) => {
    const m = commandLines.map((c) => new RegExp(`--${name}=(\\S+)`).exec(c)?.[1]).find(Boolean);
    return m === undefined ? undefined : Number(m);
  };
  const auditLog = commandLines.map((c) => /--audit-log-path=(\S+)/.exec(c)?.[1]).find(Boolean);
  return {
    assetSetVersion,
    encryption: encryptionOf(files.get(ENCRYPTION_CONFIG_ASSET), now),
    audit:
      files.has(AUDIT_POLICY_ASSET) && auditLog
        ? { on: true, log: auditLog, maxSizeMb: flag("audit-log-maxsize"), maxBackups: flag("audit-log-maxbackup"), maxAgeDays: flag("audit-log-maxage") }
        : { on: false },
    podSecurity: podSecurityOfConfig(files.get(ADMISSION_CONFIG_ASSET)),
    profilingOff: commandLines.length >= 3 && commandLines.every((c) => c.includes("--profiling=false")),
  };
}

function encryptionOf(text: string | undefined, now: Date): Hardening["encryption"] {
  const writes = text === undefined ? undefined : encryptionWrites(text);
  if (!writes) return { state: "none" };
  if (writes.provider === "identity") return { state: "plain", provider: writes.provider };
  const madeOn = writes.keyName ? keyMadeOn(writes.keyName) : undefined;
  const created = madeOn ? new Date(`${madeOn}T00:00:00Z`) : undefined;
  return {
    state: "encrypted",
    ...writes,
    ...(created ? { keyCreated: created.toISOString().slice(0, 10), keyAgeDays: Math.max(0, Math.floor((now.getTime() - created.getTime()) / 86_400_000)) } : {}),
  };
}

function podSecurityOfConfig(text: string | undefined): Hardening["podSecurity"] {
  if (text === undefined) return null;
  const config = admissionSchema.safeParse(parse(text));
  const ps = podSecuritySchema.safeParse(config.success ? config.data.plugins.find((p) => p.name === "PodSecurity")?.configuration : undefined);
  return ps.success ? { ...ps.data.defaults, exemptNamespaces: ps.data.exemptions.namespaces } : null;
}

/**
 * GET /api/clusters/:id/hardening: the hardening of the asset set the cluster runs (its newest run
 * that changed hosts; before any, its newest set). A set made since and not rolled out yet (a key
 * rotation planned, not run) does not count.
 */
export async function clusterHardening({ clusterId }: { clusterId: string }, now = new Date()): Promise<Hardening> {
  const db = getDb();
  await clusterMustExist(clusterId);
  const setId = await runningAssetSet(clusterId);
  const set = setId ? await db.assetSet.findUnique({ where: { id: setId }, select: { id: true, version: true } }) : null;
  if (!set) return hardeningOf(new Map(), null, now);
  const rows = await db.asset.findMany({
    where: { assetSetId: set.id, OR: [{ path: { in: [ENCRYPTION_CONFIG_ASSET, AUDIT_POLICY_ASSET, ADMISSION_CONFIG_ASSET] } }, { path: { startsWith: "manifests/kube-" } }, { path: { startsWith: "static-manifests/kube-" } }] },
    select: { id: true, path: true, content: true, sensitive: true },
  });
  // Secret manifests (the API server's Secret) are sensitive and not needed: only the encryption configuration is opened.
  const wanted = rows.filter((r) => !r.sensitive || r.path === ENCRYPTION_CONFIG_ASSET);
  return hardeningOf(new Map(wanted.map((r) => [r.path, assetContent(r)])), set.version, now);
}
