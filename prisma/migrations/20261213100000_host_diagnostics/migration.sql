-- The last node diagnostics of each host, for support bundles.
ALTER TABLE "Host" ADD COLUMN "diagnostics" TEXT;
