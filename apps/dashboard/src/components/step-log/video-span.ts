import type { RunEvent } from "@skillrun/client";

/** Which of a run's events its video shows (`video_url`, the video of its latest claim). */
export interface VideoSpan {
  /** The index of the first event the video shows: its latest `run_claimed` (0 when none). */
  from: number;
  /** An event before `from` has a `video_offset_ms`: an earlier video, not shown, recorded it. */
  earlier: boolean;
}

/**
 * The part of a run's step log its video shows. Each claim of a run (the first, and again after
 * a park, a lost worker or a release) records a video of its own, its offsets counted from that
 * video's start; the server sets the earlier ones aside (`<run>-attempt-<n>.webm`, never served)
 * and `video_url` gives the last. So only the events after the latest `run_claimed` have an
 * offset in the video the page shows: the offsets of those before point into another video.
 */
export function videoSpan(events: RunEvent[]): VideoSpan {
  let from = 0;
  for (let i = events.length - 1; i >= 0; i--) {
    if (events[i]?.type === "run_claimed") {
      from = i;
      break;
    }
  }
  let earlier = false;
  for (let i = 0; i < from && !earlier; i++) earlier = events[i]?.video_offset_ms != null;
  return { from, earlier };
}
