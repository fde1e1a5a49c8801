-- AlterTable
ALTER TABLE "skills" ADD COLUMN "deleted_at" DATETIME;
ALTER TABLE "runs" ADD COLUMN "skill_version" TEXT;
