-- AlterTable
ALTER TABLE "AuditEvent" ADD COLUMN "provider" TEXT;
ALTER TABLE "AuditEvent" ADD COLUMN "subject" TEXT;

-- CreateTable
CREATE TABLE "AccessSettings" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "oidcEnabled" BOOLEAN NOT NULL DEFAULT false,
    "issuer" TEXT,
    "clientId" TEXT,
    "clientSecretCipher" TEXT,
    "scopes" TEXT NOT NULL DEFAULT 'openid profile email offline_access',
    "groupsClaim" TEXT NOT NULL DEFAULT 'groups',
    "usernameClaim" TEXT NOT NULL DEFAULT 'preferred_username',
    "localSignIn" TEXT NOT NULL DEFAULT 'everyone',
    "breakGlass" TEXT NOT NULL DEFAULT '[]',
    "kubeconfigHours" INTEGER NOT NULL DEFAULT 8,
    "updatedAt" DATETIME NOT NULL,
    "updatedBy" TEXT
);

-- CreateTable
CREATE TABLE "GroupRole" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "group" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "clusterId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "GroupRole_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "OidcLogin" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "codeVerifier" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "next" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "KubeconfigIssue" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "clusterId" TEXT NOT NULL,
    "userId" TEXT,
    "username" TEXT NOT NULL,
    "group" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "serial" TEXT NOT NULL,
    "notBefore" DATETIME NOT NULL,
    "notAfter" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "KubeconfigIssue_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_User" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "username" TEXT NOT NULL,
    "displayName" TEXT NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "role" TEXT NOT NULL DEFAULT 'admin',
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "authProvider" TEXT NOT NULL DEFAULT 'local',
    "oidcIssuer" TEXT,
    "oidcSubject" TEXT
);
INSERT INTO "new_User" ("createdAt", "disabled", "displayName", "id", "passwordHash", "role", "updatedAt", "username") SELECT "createdAt", "disabled", "displayName", "id", "passwordHash", "role", "updatedAt", "username" FROM "User";
DROP TABLE "User";
ALTER TABLE "new_User" RENAME TO "User";
CREATE UNIQUE INDEX "User_username_key" ON "User"("username");
CREATE UNIQUE INDEX "User_oidcIssuer_oidcSubject_key" ON "User"("oidcIssuer", "oidcSubject");
CREATE TABLE "new_Session" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "userId" TEXT NOT NULL,
    "csrfToken" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME NOT NULL,
    "lastSeenAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ip" TEXT,
    "userAgent" TEXT,
    "provider" TEXT NOT NULL DEFAULT 'local',
    "refreshCipher" TEXT,
    "refreshDueAt" DATETIME,
    "groups" TEXT NOT NULL DEFAULT '[]',
    CONSTRAINT "Session_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Session" ("createdAt", "csrfToken", "expiresAt", "id", "ip", "lastSeenAt", "userAgent", "userId") SELECT "createdAt", "csrfToken", "expiresAt", "id", "ip", "lastSeenAt", "userAgent", "userId" FROM "Session";
DROP TABLE "Session";
ALTER TABLE "new_Session" RENAME TO "Session";
CREATE INDEX "Session_userId_idx" ON "Session"("userId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "GroupRole_group_idx" ON "GroupRole"("group");

-- CreateIndex
CREATE INDEX "OidcLogin_expiresAt_idx" ON "OidcLogin"("expiresAt");

-- CreateIndex
CREATE INDEX "KubeconfigIssue_clusterId_notAfter_idx" ON "KubeconfigIssue"("clusterId", "notAfter");

