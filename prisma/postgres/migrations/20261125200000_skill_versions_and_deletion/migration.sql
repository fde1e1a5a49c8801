-- AlterTable
ALTER TABLE "skills" ADD COLUMN     "deleted_at" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "skill_version" TEXT;
