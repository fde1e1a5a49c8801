import { isTerminalState, type RunSession } from "@skillrun/client";
import type { ReactNode, Ref } from "react";
import { RunVideo } from "../../components/run-video.js";
import { Section } from "../../components/section.js";

/**
 * The live view of a run that has not ended (`live`), then the run's video with a line saying
 * where it was moved, or why there is no video (yet); for a parked run, that no browser is open
 * for it meanwhile (its live view shows its last frame, its video the part before it parked).
 */
export function VideoPanel(props: {
  run: RunSession;
  /** The run is parked: it waits with its browser closed. */
  parked: boolean;
  videoRef: Ref<HTMLVideoElement>;
  /** What the last move of the video was, in words ("" before any). */
  seeked: string;
  /** The live view, shown while the run has not ended (its video comes once it has). */
  live?: ReactNode;
}) {
  const { run } = props;
  return (
    <Section name="video" title="Video" className="video-panel">
      {!isTerminalState(run.state) && props.live}
      {run.video_url ? (
        <>
          <RunVideo ref={props.videoRef} src={run.video_url} title={`Video of run ${run.id}`} />
          <p className="muted" role="status">
            {props.seeked || "Choose a step in the log to see it in the video."}
          </p>
        </>
      ) : (
        <div className="video-placeholder">
          <p>
            {isTerminalState(run.state)
              ? "No video: this run opened no browser, or its video is still being saved."
              : props.parked
                ? "Parked: no browser is open for this run while it waits. A run that opens a browser has its video here once it ends."
                : "A run that opens a browser has its video here once it ends."}
          </p>
        </div>
      )}
    </Section>
  );
}
