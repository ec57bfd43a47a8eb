-- A run keeps the definition it was planned from (the runner never reads the cluster's current one),
-- and the cluster's edit count at that moment: a run planned at another revision is stale.
ALTER TABLE "Cluster" ADD COLUMN "revision" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "Run" ADD COLUMN "definition" TEXT;
ALTER TABLE "Run" ADD COLUMN "definitionRevision" INTEGER;
-- Runs planned before this migration were planned from the definition as it is now.
UPDATE "Run" SET "definition" = (SELECT "definition" FROM "Cluster" WHERE "Cluster"."id" = "Run"."clusterId"), "definitionRevision" = 0;
-- Who re-pinned a host's key after a probe showed the new one.
ALTER TABLE "Host" ADD COLUMN "hostKeyConfirmedBy" TEXT;
