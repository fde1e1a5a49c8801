-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "paused_for" TEXT,
ADD COLUMN     "pause_requested" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "resume_input" TEXT;
