-- Agents: runs on the owner's machine (docs/decisions/0065-agents-pull-client-runs.md).
-- AlterTable
ALTER TABLE "runs" ADD COLUMN "queued_until" DATETIME;

-- CreateTable
CREATE TABLE "agents" (
    "id" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL,
    "last_contact_at" DATETIME NOT NULL,

    PRIMARY KEY ("owner", "id")
);
