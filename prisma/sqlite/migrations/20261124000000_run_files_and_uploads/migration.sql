-- CreateTable
CREATE TABLE "run_files" (
    "run_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "content_type" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL,

    PRIMARY KEY ("run_id", "name"),
    CONSTRAINT "run_files_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "uploaded_files" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "owner" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "content_type" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "uploaded_files_created_at_idx" ON "uploaded_files"("created_at");
