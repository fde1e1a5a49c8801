-- What a step acted on or made, and the run file its failure left (docs/decisions/0059-step-detail.md).
-- AlterTable
ALTER TABLE "run_events" ADD COLUMN     "step_detail" TEXT,
ADD COLUMN     "file" TEXT;
