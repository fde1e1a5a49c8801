import { isTerminalState, type RunSession } from "@skillrun/client";
import type { Ref } from "react";
import { RunVideo } from "../../components/run-video.js";
import { Section } from "../../components/section.js";

/**
 * The run's video with a line saying where it was moved, or why there is no video (yet); for a
 * parked run, that no browser is open for it meanwhile.
 */
export function VideoPanel(props: {
  run: RunSession;
  /** The run is parked: it waits with its browser closed. */
  parked: boolean;
  videoRef: Ref<HTMLVideoElement>;
  /** What the last move of the video was, in words ("" before any). */
  seeked: string;
}) {
  const { run } = props;
  return (
    <Section name="video" title="Video" className="video-panel">
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
