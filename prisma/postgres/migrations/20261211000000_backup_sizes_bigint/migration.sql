-- PostgreSQL's twin of prisma/migrations/20261211000000_backup_sizes_bigint: backup sizes as 64-bit integers.
-- AlterTable
ALTER TABLE "Backup" ALTER COLUMN "size" SET DATA TYPE BIGINT,
ALTER COLUMN "storedSize" SET DATA TYPE BIGINT;

