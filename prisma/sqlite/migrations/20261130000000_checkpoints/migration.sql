-- Durable runs: each run's checkpoints, and where a run goes on from (docs/decisions/0051-checkpoints.md).
-- AlterTable
ALTER TABLE "runs" ADD COLUMN "resume_from" TEXT;
ALTER TABLE "runs" ADD COLUMN "rerun_of" TEXT;
ALTER TABLE "runs" ADD COLUMN "rerun_step" TEXT;
ALTER TABLE "runs" ADD COLUMN "rerun_own_inputs" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "runs" ADD COLUMN "parked_at" DATETIME;
ALTER TABLE "runs" ADD COLUMN "wake_at" DATETIME;
ALTER TABLE "runs" ADD COLUMN "active_ms" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "run_checkpoints" (
    "run_id" TEXT NOT NULL,
    "step_label" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "top_level" BOOLEAN NOT NULL,
    "state" TEXT,
    "bytes" INTEGER NOT NULL,
    "created_at" DATETIME NOT NULL,

    PRIMARY KEY ("run_id", "step_label"),
    CONSTRAINT "run_checkpoints_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "run_checkpoints_run_id_seq_idx" ON "run_checkpoints"("run_id", "seq");
