-- Schedules: runs started at the times a cron names (docs/decisions/0053-schedules.md).
-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "schedule_id" TEXT,
ADD COLUMN     "scheduled_at" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "schedules" (
    "id" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "skill_id" TEXT NOT NULL,
    "inputs" TEXT NOT NULL,
    "secret_inputs" TEXT,
    "cron" TEXT NOT NULL,
    "timezone" TEXT NOT NULL,
    "overlap" TEXT NOT NULL,
    "catchup_ms" INTEGER NOT NULL DEFAULT 0,
    "jitter_ms" INTEGER NOT NULL DEFAULT 0,
    "paused" BOOLEAN NOT NULL DEFAULT false,
    "paused_reason" TEXT,
    "pause_after_failures" INTEGER,
    "failures_in_row" INTEGER NOT NULL DEFAULT 0,
    "next_tick_at" TIMESTAMP(3),
    "fire_at" TIMESTAMP(3),
    "last_run_id" TEXT,
    "buffered_tick_at" TIMESTAMP(3),
    "tick_seq" INTEGER NOT NULL DEFAULT 0,
    "version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMP(3) NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "schedules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "schedule_ticks" (
    "schedule_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "tick_at" TIMESTAMP(3) NOT NULL,
    "decided_at" TIMESTAMP(3) NOT NULL,
    "outcome" TEXT NOT NULL,
    "run_id" TEXT,
    "reason" TEXT,
    "message" TEXT,
    "manual" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "schedule_ticks_pkey" PRIMARY KEY ("schedule_id","seq")
);

-- CreateIndex
CREATE INDEX "schedules_owner_created_at_idx" ON "schedules"("owner", "created_at");

-- CreateIndex
CREATE INDEX "schedules_paused_fire_at_idx" ON "schedules"("paused", "fire_at");

-- CreateIndex
CREATE INDEX "schedules_buffered_tick_at_idx" ON "schedules"("buffered_tick_at");

-- AddForeignKey
ALTER TABLE "schedule_ticks" ADD CONSTRAINT "schedule_ticks_schedule_id_fkey" FOREIGN KEY ("schedule_id") REFERENCES "schedules"("id") ON DELETE CASCADE ON UPDATE CASCADE;
