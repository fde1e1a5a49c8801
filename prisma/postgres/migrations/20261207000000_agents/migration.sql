-- Agents: runs on the owner's machine (docs/decisions/0065-agents-pull-client-runs.md).
-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "queued_until" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "agents" (
    "id" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,
    "last_contact_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "agents_pkey" PRIMARY KEY ("owner","id")
);
