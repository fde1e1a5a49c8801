import type { RunEvent, RunSession } from "@skillrun/client";
import { videoSpan } from "../../components/step-log/video-span.js";

/** Why a run failed or timed out, and at which step (null: the run itself); null otherwise. */
export function failureOf(run: RunSession): { step: string | null; message: string } | null {
  const error = (run.data as { error?: { step?: string | null; message?: string } } | null)?.error;
  if (!error || (run.state !== "reset" && run.state !== "timeout")) return null;
  return { step: error.step ?? null, message: error.message ?? "" };
}

/**
 * Where in the video the step labelled `label` last was, if the video shows it: only the events
 * since the run's latest claim are in its video (`videoSpan`).
 */
export function offsetOfStep(events: RunEvent[], label: string | null): number | null {
  if (!label) return null;
  const { from } = videoSpan(events);
  for (let i = events.length - 1; i >= from; i--) {
    const event = events[i];
    if (event?.step?.label === label && event.video_offset_ms != null) return event.video_offset_ms;
  }
  return null;
}
