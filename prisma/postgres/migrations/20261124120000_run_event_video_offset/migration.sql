-- AlterTable
ALTER TABLE "run_events" ADD COLUMN     "video_offset_ms" INTEGER;
