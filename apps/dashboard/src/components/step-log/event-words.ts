import type { RunEvent } from "@skillrun/client";

/** What a run's own events (not a step's) say in the log. */
export const RUN_EVENT_TEXT: Partial<Record<RunEvent["type"], string>> = {
  run_claimed: "Taken by a worker",
  run_started: "Started",
  run_finished: "Finished",
  run_failed: "Failed",
  run_timed_out: "Timed out",
  run_cancelled: "Cancelled",
  run_released: "Put back in the queue",
  run_paused: "Paused",
  run_resumed: "Resumed",
  worker_lost: "Worker lost",
  video_recorded: "Video saved",
};

/** The step's kind, unless its label already says it ("step 2 (fill)"). */
export function kindText(step: RunEvent["step"]): string {
  if (!step) return "";
  return step.label.endsWith(`(${step.kind})`) ? "" : step.kind;
}
