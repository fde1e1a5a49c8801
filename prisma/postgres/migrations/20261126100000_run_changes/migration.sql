-- CreateTable
CREATE TABLE "run_changes" (
    "id" SERIAL NOT NULL,
    "owner" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "run_changes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "run_changes_owner_id_idx" ON "run_changes"("owner", "id");

-- CreateIndex
CREATE INDEX "run_changes_at_idx" ON "run_changes"("at");
