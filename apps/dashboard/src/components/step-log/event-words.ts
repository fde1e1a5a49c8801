import type { RunEvent } from "@skillrun/client";

/** The events about a step, or a line it logs, or its data: the log words them otherwise. */
type StepEventType =
  | "step_started"
  | "step_finished"
  | "step_failed"
  | "step_skipped"
  | "log"
  | "data_updated";

/**
 * What a run's own events (not a step's) say in the log: every one of them, so that a new type
 * in the contract fails the typecheck here rather than showing as its raw name.
 */
export const RUN_EVENT_TEXT: Record<Exclude<RunEvent["type"], StepEventType>, string> = {
  run_claimed: "Taken by a worker",
  run_started: "Started",
  run_finished: "Finished",
  run_failed: "Failed",
  run_timed_out: "Timed out",
  run_cancelled: "Cancelled",
  run_released: "Put back in the queue",
  run_paused: "Paused",
  run_resumed: "Resumed",
  run_parked: "Parked",
  worker_lost: "Worker lost",
  video_recorded: "Video saved",
};

/** The step's kind, unless its label already says it ("step 2 (fill)"). */
export function kindText(step: RunEvent["step"]): string {
  if (!step) return "";
  return step.label.endsWith(`(${step.kind})`) ? "" : step.kind;
}
