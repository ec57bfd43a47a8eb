// Request bodies of the disaster-recovery runs (POST /api/clusters/:id/runs); browser-safe.
import { z } from "zod";
import type { Permission } from "../auth/roles";

export const drRunTypes = ["backup", "restore", "recover", "rotate-certs", "rotate-encryption-key"] as const;
export type DrRunType = (typeof drRunTypes)[number];

export const drRunBodies = [
  /** An etcd snapshot now, stored encrypted with the cluster's backups. */
  z.strictObject({ type: z.literal("backup") }),
  /** Every master's etcd from a stored snapshot, then the control plane back; the API is down meanwhile. */
  z.strictObject({
    type: z.literal("restore"),
    backup: z.string().regex(/^bk_[A-Za-z0-9_-]{16}$/, "must be a backup's id (bk_…)"),
    confirm: z.literal(true, { error: "restoring a cluster needs confirm: true (everything written since the snapshot is lost)" }),
  }),
  /** A temporary control plane from etcd's current state, then the pivot again. */
  z.strictObject({ type: z.literal("recover"), confirm: z.literal(true, { error: "recovering the control plane needs confirm: true" }) }),
  /** Every leaf certificate issued again (same CAs and keys) and rolled out, the API kept up. */
  z.strictObject({
    type: z.literal("rotate-certs"),
    confirm: z.literal(true, { error: "rotating certificates needs confirm: true" }),
    /** Days the renewed certificates are valid (default: as the cluster's assets were rendered). */
    leafValidityDays: z.number().int().min(1).max(3650).optional(),
  }),
  /** A new key for Secrets at rest: added, written with, every Secret stored again with it, the old keys dropped; the API kept up. */
  z.strictObject({ type: z.literal("rotate-encryption-key"), confirm: z.literal(true, { error: "rotating the encryption key needs confirm: true" }) }),
] as const;

export type DrRunBody = z.output<(typeof drRunBodies)[number]>;

export const isDrRunType = (type: string): type is DrRunType => (drRunTypes as readonly string[]).includes(type);

/** What planning, starting or retrying each needs beside run:start (lib/engine/run-rules.ts). */
export const drRunPermission: Record<DrRunType, Permission> = {
  backup: "backup:create",
  restore: "cluster:recover",
  recover: "cluster:recover",
  "rotate-certs": "cluster:recover",
  "rotate-encryption-key": "cluster:recover",
};

/** What a refused role may not do, for the 403's message. */
export const drRunRefusal: Record<DrRunType, string> = {
  backup: "take backups",
  restore: "restore a cluster from a backup",
  recover: "recover a control plane",
  "rotate-certs": "rotate certificates",
  "rotate-encryption-key": "rotate the encryption key",
};

/** Each as a thing done, for "Your role may not retry …". */
export const drRunNoun: Record<DrRunType, string> = {
  backup: "a backup",
  restore: "a restore from a backup",
  recover: "a control plane recovery",
  "rotate-certs": "a certificate rotation",
  "rotate-encryption-key": "an encryption key rotation",
};
