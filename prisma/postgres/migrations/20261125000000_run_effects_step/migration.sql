-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "effects_step" TEXT;
