// Request bodies of the cluster API; browser-safe so the UI builds exactly what the server parses.
import { z } from "zod";
import { isDns1123Label } from "../cluster/net-syntax";

const credentialSecret = z.strictObject({
  privateKey: z.string().max(16 * 1024, "must be at most 16 KiB").optional(),
  passphrase: z.string().max(1024).optional(),
  password: z.string().max(1024).optional(),
});

export const secretsSchema = z.record(z.string().max(63), credentialSecret).default({});
export type CredentialSecrets = z.output<typeof secretsSchema>;

export const saveClusterBody = z.strictObject({ definition: z.unknown(), secrets: secretsSchema });
export const importClusterBody = z.strictObject({
  yaml: z.string().max(2 * 1024 * 1024),
  secrets: secretsSchema,
  /** Update the cluster of the same name instead of refusing the import. */
  replace: z.boolean().default(false),
});
export const deleteClusterBody = z.strictObject({ confirmName: z.string().max(63) });
export const clusterIdParams = z.strictObject({ id: z.string().regex(/^cl_[A-Za-z0-9_-]{16}$/) });
/** A host of a cluster, by its name (a DNS-1123 label). */
export const hostParams = z.strictObject({ id: clusterIdParams.shape.id, host: z.string().max(63).refine(isDns1123Label) });

export const queryKeys = {
  clusters: () => ["clusters"] as const,
  cluster: (id: string) => ["clusters", id] as const,
  host: (id: string, host: string) => ["clusters", id, "hosts", host] as const,
};
