-- Backups: etcd snapshots (the encrypted files live in the data directory, not here) and each cluster's schedule and retention.
-- PostgreSQL's twin of prisma/migrations/20261210000000_backups (generated with prisma migrate diff from the twin schema).
-- CreateTable
CREATE TABLE "Backup" (
    "id" TEXT NOT NULL,
    "clusterId" TEXT NOT NULL,
    "runId" TEXT,
    "trigger" TEXT NOT NULL,
    "member" TEXT NOT NULL,
    "file" TEXT NOT NULL,
    "keyCipher" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "tag" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "storedSize" INTEGER NOT NULL,
    "revision" TEXT NOT NULL,
    "totalKeys" INTEGER NOT NULL,
    "etcdVersion" TEXT NOT NULL,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Backup_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BackupPolicy" (
    "clusterId" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "intervalMinutes" INTEGER NOT NULL DEFAULT 360,
    "keepLast" INTEGER NOT NULL DEFAULT 14,
    "keepDays" INTEGER NOT NULL DEFAULT 30,
    "nextDueAt" TIMESTAMP(3),
    "lastAttemptAt" TIMESTAMP(3),
    "lastRunId" TEXT,
    "lastStatus" TEXT,
    "lastError" TEXT,
    "lastSuccessAt" TIMESTAMP(3),
    "failures" INTEGER NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "updatedBy" TEXT,

    CONSTRAINT "BackupPolicy_pkey" PRIMARY KEY ("clusterId")
);

-- CreateIndex
CREATE UNIQUE INDEX "Backup_runId_key" ON "Backup"("runId");

-- CreateIndex
CREATE INDEX "Backup_clusterId_createdAt_idx" ON "Backup"("clusterId", "createdAt");

-- AddForeignKey
ALTER TABLE "Backup" ADD CONSTRAINT "Backup_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BackupPolicy" ADD CONSTRAINT "BackupPolicy_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

