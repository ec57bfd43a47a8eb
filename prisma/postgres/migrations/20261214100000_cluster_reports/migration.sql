-- CreateTable
CREATE TABLE "ClusterReport" (
    "id" TEXT NOT NULL,
    "clusterId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "passed" INTEGER NOT NULL,
    "failed" INTEGER NOT NULL,
    "warned" INTEGER NOT NULL,
    "skipped" INTEGER NOT NULL,
    "failures" TEXT NOT NULL DEFAULT '[]',
    "ranAt" TIMESTAMP(3),
    "uploadedBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ClusterReport_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ClusterReport_clusterId_kind_createdAt_idx" ON "ClusterReport"("clusterId", "kind", "createdAt");

-- AddForeignKey
ALTER TABLE "ClusterReport" ADD CONSTRAINT "ClusterReport_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;
