import { useCallback, useRef, useState } from "react";
import { formatDuration } from "../../components/time.js";

/**
 * The run's video element and a way to move it to a step: `seek` sets its time and words what
 * it did in `seeked`, for a status line that a screen reader announces.
 */
export function useVideoSeek() {
  const ref = useRef<HTMLVideoElement>(null);
  const [seeked, setSeeked] = useState("");
  // Stable, so that the step log (memoised) is not rebuilt when the page renders again.
  const seek = useCallback((offsetMs: number, label: string) => {
    const video = ref.current;
    if (!video) return;
    video.currentTime = offsetMs / 1000;
    setSeeked(`Video moved to ${formatDuration(offsetMs)}: ${label}`);
  }, []);
  return { ref, seeked, seek };
}
