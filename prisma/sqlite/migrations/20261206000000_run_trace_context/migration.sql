-- The trace context of the request that queued a run (a W3C traceparent), for its span to
-- follow (docs/decisions/0063-traces-with-explicit-context.md); null when tracing is off.
-- AlterTable
ALTER TABLE "runs" ADD COLUMN "trace_parent" TEXT;
