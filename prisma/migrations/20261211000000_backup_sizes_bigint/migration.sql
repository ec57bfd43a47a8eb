-- Backup sizes as 64-bit integers: etcd databases (and so snapshots) may pass 2 GiB, past a 32-bit Int.
-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Backup" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "clusterId" TEXT NOT NULL,
    "runId" TEXT,
    "trigger" TEXT NOT NULL,
    "member" TEXT NOT NULL,
    "file" TEXT NOT NULL,
    "keyCipher" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "tag" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "size" BIGINT NOT NULL,
    "storedSize" BIGINT NOT NULL,
    "revision" TEXT NOT NULL,
    "totalKeys" INTEGER NOT NULL,
    "etcdVersion" TEXT NOT NULL,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Backup_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Backup" ("clusterId", "createdAt", "createdById", "etcdVersion", "file", "id", "keyCipher", "member", "nonce", "revision", "runId", "sha256", "size", "storedSize", "tag", "totalKeys", "trigger") SELECT "clusterId", "createdAt", "createdById", "etcdVersion", "file", "id", "keyCipher", "member", "nonce", "revision", "runId", "sha256", "size", "storedSize", "tag", "totalKeys", "trigger" FROM "Backup";
DROP TABLE "Backup";
ALTER TABLE "new_Backup" RENAME TO "Backup";
CREATE UNIQUE INDEX "Backup_runId_key" ON "Backup"("runId");
CREATE INDEX "Backup_clusterId_createdAt_idx" ON "Backup"("clusterId", "createdAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

