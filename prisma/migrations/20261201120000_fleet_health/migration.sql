-- AlterTable
ALTER TABLE "AssetSet" ADD COLUMN "notAfter" DATETIME;

-- CreateTable
CREATE TABLE "NodesSeen" (
    "clusterId" TEXT NOT NULL PRIMARY KEY,
    "ready" INTEGER NOT NULL,
    "total" INTEGER NOT NULL,
    "seenAt" DATETIME NOT NULL,
    CONSTRAINT "NodesSeen_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

