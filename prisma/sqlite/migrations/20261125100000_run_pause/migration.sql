-- AlterTable
ALTER TABLE "runs" ADD COLUMN "paused_for" TEXT;
ALTER TABLE "runs" ADD COLUMN "pause_requested" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "runs" ADD COLUMN "resume_input" TEXT;
