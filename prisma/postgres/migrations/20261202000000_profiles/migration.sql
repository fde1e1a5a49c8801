-- Browser profiles: an owner's saved browser states, and what a skill and a run say of theirs
-- (docs/decisions/0054-browser-profiles.md).
-- AlterTable
ALTER TABLE "skills" ADD COLUMN     "profile_name" TEXT,
ADD COLUMN     "profile_save" TEXT;

-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "profile" TEXT,
ADD COLUMN     "profile_save" TEXT;

-- CreateTable
CREATE TABLE "profiles" (
    "owner" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "state" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "summary" TEXT NOT NULL,
    "saved_by_run" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "profiles_pkey" PRIMARY KEY ("owner","name")
);

-- CreateIndex
CREATE INDEX "runs_owner_profile_state_idx" ON "runs"("owner", "profile", "state");
