-- PostgreSQL's twin of prisma/migrations/20261212202000_backup_targets: the cluster's backup key, each backup's copy in its bucket, the bucket per cluster.
-- AlterTable
ALTER TABLE "Cluster" ADD COLUMN "backupKeyCipher" TEXT;

-- AlterTable
ALTER TABLE "Backup" ADD COLUMN "remoteAt" TIMESTAMP(3),
ADD COLUMN "remoteError" TEXT,
ADD COLUMN "remoteEtag" TEXT,
ADD COLUMN "remoteKey" TEXT,
ADD COLUMN "remoteWhere" TEXT;

-- CreateTable
CREATE TABLE "BackupTarget" (
    "clusterId" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "bucket" TEXT NOT NULL,
    "prefix" TEXT NOT NULL DEFAULT '',
    "forcePathStyle" BOOLEAN NOT NULL DEFAULT false,
    "accessKeyId" TEXT NOT NULL,
    "secretKeyCipher" TEXT NOT NULL,
    "lastTestAt" TIMESTAMP(3),
    "lastTestOk" BOOLEAN,
    "lastTestMessage" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "updatedBy" TEXT,

    CONSTRAINT "BackupTarget_pkey" PRIMARY KEY ("clusterId")
);

-- AddForeignKey
ALTER TABLE "BackupTarget" ADD CONSTRAINT "BackupTarget_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;
