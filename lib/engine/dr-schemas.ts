// Request bodies of the disaster-recovery runs (POST /api/clusters/:id/runs); browser-safe.
import { z } from "zod";
import type { Permission } from "../auth/roles";

export const drRunTypes = ["backup"] as const;
export type DrRunType = (typeof drRunTypes)[number];

export const drRunBodies = [
  /** An etcd snapshot now, stored encrypted with the cluster's backups. */
  z.strictObject({ type: z.literal("backup") }),
] as const;

export type DrRunBody = z.output<(typeof drRunBodies)[number]>;

export const isDrRunType = (type: string): type is DrRunType => (drRunTypes as readonly string[]).includes(type);

/** What planning, starting or retrying each needs beside run:start (lib/engine/run-rules.ts). */
export const drRunPermission: Record<DrRunType, Permission> = {
  backup: "backup:create",
};

/** What a refused role may not do, for the 403's message. */
export const drRunRefusal: Record<DrRunType, string> = {
  backup: "take backups",
};
