import type { EngineEvent } from "@skillrun/engine";
import type { NewRunEvent } from "../db/repositories/run-events.js";

/**
 * The step-log entry of an engine event, or null for the events that end a run: the worker
 * writes those itself, together with the run's final state.
 */
export function toRunEvent(runId: string, event: EngineEvent, attempt: number): NewRunEvent | null {
  const entry = entryOf(runId, event, attempt);
  // The events about a step say where they are in a recorded run's video.
  const offset = "video_offset_ms" in event ? event.video_offset_ms : undefined;
  return entry === null || offset === undefined ? entry : { ...entry, videoOffsetMs: offset };
}

function entryOf(runId: string, event: EngineEvent, attempt: number): NewRunEvent | null {
  const at = new Date(event.at);
  switch (event.type) {
    case "run_started":
      return { runId, at, type: "run_started", attempt };
    case "step_started":
      return { runId, at, type: event.type, step: event.step, attempt: event.attempt };
    case "step_finished":
      return {
        runId,
        at,
        type: event.type,
        step: event.step,
        attempt: event.attempt,
        durationMs: event.duration_ms,
        ...(event.detail !== undefined && { detail: event.detail }),
      };
    case "step_skipped":
      return { runId, at, type: event.type, step: event.step };
    case "step_failed":
      return {
        runId,
        at,
        type: event.type,
        step: event.step,
        attempt: event.attempt,
        durationMs: event.duration_ms,
        message: event.message,
        data: { will_retry: event.will_retry },
        ...(event.detail !== undefined && { detail: event.detail }),
        ...(event.file !== undefined && { file: event.file }),
      };
    case "log":
      return {
        runId,
        at,
        type: "log",
        step: event.step,
        level: event.level,
        message: event.message,
      };
    case "data_updated":
      return { runId, at, type: event.type, step: event.step, data: event.changes };
    case "run_finished":
    case "run_failed":
    case "run_aborted":
      return null;
  }
}
