-- The bytes each owner keeps, and the size of each run's video (docs/decisions/0049-owner-storage-quota.md).
-- CreateTable
CREATE TABLE "owner_storage" (
    "owner" TEXT NOT NULL,
    "bytes" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "owner_storage_pkey" PRIMARY KEY ("owner")
);

-- CreateTable
CREATE TABLE "run_videos" (
    "run_id" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "bytes" BIGINT NOT NULL,

    CONSTRAINT "run_videos_pkey" PRIMARY KEY ("run_id")
);

-- What owners keep already is counted from the rows that record it; videos recorded before this
-- migration have no recorded size and are not counted.
INSERT INTO "owner_storage" ("owner", "bytes")
SELECT "owner", SUM("bytes") FROM (
    SELECT "owner", "bytes" FROM "uploaded_files"
    UNION ALL
    SELECT "runs"."owner", "run_files"."bytes" FROM "run_files" JOIN "runs" ON "runs"."id" = "run_files"."run_id"
) AS "kept"
GROUP BY "owner";
