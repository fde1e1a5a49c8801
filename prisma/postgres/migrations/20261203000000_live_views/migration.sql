-- The live view: each watched or parked run's latest frame, and until when somebody watches it
-- (docs/decisions/0057-live-view-through-the-database.md).
-- CreateTable
CREATE TABLE "run_live_views" (
    "run_id" TEXT NOT NULL,
    "watch_ends_at" TIMESTAMP(3),
    "frame" BYTEA,
    "frame_seq" INTEGER NOT NULL DEFAULT 0,
    "frame_at" TIMESTAMP(3),

    CONSTRAINT "run_live_views_pkey" PRIMARY KEY ("run_id")
);

-- AddForeignKey
ALTER TABLE "run_live_views" ADD CONSTRAINT "run_live_views_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
