-- The live view: each watched or parked run's latest frame, and until when somebody watches it
-- (docs/decisions/0057-live-view-through-the-database.md).
-- CreateTable
CREATE TABLE "run_live_views" (
    "run_id" TEXT NOT NULL PRIMARY KEY,
    "watch_ends_at" DATETIME,
    "frame" BLOB,
    "frame_seq" INTEGER NOT NULL DEFAULT 0,
    "frame_at" DATETIME,
    CONSTRAINT "run_live_views_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
