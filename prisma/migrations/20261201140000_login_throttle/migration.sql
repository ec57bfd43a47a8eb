-- CreateTable
CREATE TABLE "LoginThrottle" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "failures" INTEGER NOT NULL,
    "lastAt" DATETIME NOT NULL,
    "until" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "LoginThrottle_lastAt_idx" ON "LoginThrottle"("lastAt");

