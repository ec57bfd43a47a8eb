-- Off-machine copies: the cluster's backup key, each backup's copy in its bucket, the bucket per cluster.
-- AlterTable
ALTER TABLE "Cluster" ADD COLUMN "backupKeyCipher" TEXT;

-- AlterTable
ALTER TABLE "Backup" ADD COLUMN "remoteAt" DATETIME;
ALTER TABLE "Backup" ADD COLUMN "remoteError" TEXT;
ALTER TABLE "Backup" ADD COLUMN "remoteEtag" TEXT;
ALTER TABLE "Backup" ADD COLUMN "remoteKey" TEXT;
ALTER TABLE "Backup" ADD COLUMN "remoteWhere" TEXT;

-- CreateTable
CREATE TABLE "BackupTarget" (
    "clusterId" TEXT NOT NULL PRIMARY KEY,
    "endpoint" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "bucket" TEXT NOT NULL,
    "prefix" TEXT NOT NULL DEFAULT '',
    "forcePathStyle" BOOLEAN NOT NULL DEFAULT false,
    "accessKeyId" TEXT NOT NULL,
    "secretKeyCipher" TEXT NOT NULL,
    "lastTestAt" DATETIME,
    "lastTestOk" BOOLEAN,
    "lastTestMessage" TEXT,
    "updatedAt" DATETIME NOT NULL,
    "updatedBy" TEXT,
    CONSTRAINT "BackupTarget_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

