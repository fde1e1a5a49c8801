-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "worker_id" TEXT,
ADD COLUMN     "lease_expires_at" TIMESTAMP(3),
ADD COLUMN     "attempts" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "run_events" (
    "id" SERIAL NOT NULL,
    "run_id" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "type" TEXT NOT NULL,
    "step_index" INTEGER,
    "step_id" TEXT,
    "step_kind" TEXT,
    "step_label" TEXT,
    "attempt" INTEGER,
    "duration_ms" INTEGER,
    "level" TEXT,
    "message" TEXT,
    "detail" TEXT,

    CONSTRAINT "run_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "runs_state_created_at_id_idx" ON "runs"("state", "created_at", "id");

-- CreateIndex
CREATE INDEX "runs_state_lease_expires_at_idx" ON "runs"("state", "lease_expires_at");

-- CreateIndex
CREATE INDEX "run_events_run_id_id_idx" ON "run_events"("run_id", "id");

-- AddForeignKey
ALTER TABLE "run_events" ADD CONSTRAINT "run_events_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
