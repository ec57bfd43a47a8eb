// Rolling batches: how many nodes an upgrade changes at once. Browser-safe (the upgrade form shows them).
import { z } from "zod";

/** A batch size: a count ("2") or a percentage of the role's nodes ("10%"), at least one node. */
export const batchSize = z
  .string()
  .max(8)
  .regex(/^([1-9]\d{0,3}|([1-9]\d?|100)%)$/, "must be a count such as 2 or a percentage such as 10%");

export const DEFAULT_BATCHES = { masters: "1", workers: "10%" } as const;

/** Nodes per batch for `total` nodes: a count as given, a percentage rounded up; at least 1. */
export function batchCount(size: string, total: number): number {
  if (total <= 0) return 1;
  const pct = /^(\d+)%$/.exec(size);
  const n = pct ? Math.ceil((total * Number(pct[1])) / 100) : Number(size);
  return Math.max(1, Math.min(total, Number.isFinite(n) ? n : 1));
}

/** Splits names into consecutive batches of `size` (count or percentage). */
export function intoBatches<T>(items: readonly T[], size: string): T[][] {
  const n = batchCount(size, items.length);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += n) out.push(items.slice(i, i + n));
  return out;
}
