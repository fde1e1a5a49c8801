-- AlterTable
ALTER TABLE "skills" ADD COLUMN "concurrency" INTEGER;
ALTER TABLE "skills" ADD COLUMN "concurrency_key" TEXT;
ALTER TABLE "runs" ADD COLUMN "concurrency_limit" INTEGER;
ALTER TABLE "runs" ADD COLUMN "concurrency_key" TEXT;

-- CreateTable
CREATE TABLE "run_owners" (
    "owner" TEXT NOT NULL PRIMARY KEY,
    "last_served" BIGINT NOT NULL DEFAULT 0
);

-- CreateIndex
CREATE INDEX "run_owners_last_served_owner_idx" ON "run_owners"("last_served", "owner");

-- CreateIndex
CREATE INDEX "runs_owner_concurrency_key_state_idx" ON "runs"("owner", "concurrency_key", "state");

-- The owners of runs that are queued or may be queued again (a lost worker's run).
INSERT INTO "run_owners" ("owner", "last_served")
  SELECT DISTINCT "owner", 0 FROM "runs" WHERE "state" IS NULL OR "state" IN ('play', 'pause');
