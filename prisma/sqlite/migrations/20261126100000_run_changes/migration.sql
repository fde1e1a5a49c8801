-- CreateTable
CREATE TABLE "run_changes" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "owner" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "at" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "run_changes_owner_id_idx" ON "run_changes"("owner", "id");

-- CreateIndex
CREATE INDEX "run_changes_at_idx" ON "run_changes"("at");
