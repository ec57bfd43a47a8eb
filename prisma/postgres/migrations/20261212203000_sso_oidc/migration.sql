-- AlterTable
ALTER TABLE "User" ADD COLUMN     "authProvider" TEXT NOT NULL DEFAULT 'local',
ADD COLUMN     "oidcIssuer" TEXT,
ADD COLUMN     "oidcSubject" TEXT;

-- AlterTable
ALTER TABLE "Session" ADD COLUMN     "groups" TEXT NOT NULL DEFAULT '[]',
ADD COLUMN     "provider" TEXT NOT NULL DEFAULT 'local',
ADD COLUMN     "refreshCipher" TEXT,
ADD COLUMN     "refreshDueAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "AuditEvent" ADD COLUMN     "provider" TEXT,
ADD COLUMN     "subject" TEXT;

-- CreateTable
CREATE TABLE "AccessSettings" (
    "id" TEXT NOT NULL,
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
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "updatedBy" TEXT,

    CONSTRAINT "AccessSettings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "GroupRole" (
    "id" TEXT NOT NULL,
    "group" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "clusterId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "GroupRole_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OidcLogin" (
    "id" TEXT NOT NULL,
    "codeVerifier" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "next" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OidcLogin_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "KubeconfigIssue" (
    "id" TEXT NOT NULL,
    "clusterId" TEXT NOT NULL,
    "userId" TEXT,
    "username" TEXT NOT NULL,
    "group" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "serial" TEXT NOT NULL,
    "notBefore" TIMESTAMP(3) NOT NULL,
    "notAfter" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "KubeconfigIssue_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "GroupRole_group_idx" ON "GroupRole"("group");

-- CreateIndex
CREATE INDEX "OidcLogin_expiresAt_idx" ON "OidcLogin"("expiresAt");

-- CreateIndex
CREATE INDEX "KubeconfigIssue_clusterId_notAfter_idx" ON "KubeconfigIssue"("clusterId", "notAfter");

-- CreateIndex
CREATE UNIQUE INDEX "User_oidcIssuer_oidcSubject_key" ON "User"("oidcIssuer", "oidcSubject");

-- AddForeignKey
ALTER TABLE "GroupRole" ADD CONSTRAINT "GroupRole_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "KubeconfigIssue" ADD CONSTRAINT "KubeconfigIssue_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

