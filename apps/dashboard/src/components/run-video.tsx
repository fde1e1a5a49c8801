import { forwardRef } from "react";

/** The run's video with the browser's own controls, which are keyboard-usable. */
export const RunVideo = forwardRef<HTMLVideoElement, { src: string; title: string }>(
  function RunVideo(props, ref) {
    return (
      // biome-ignore lint/a11y/useMediaCaption: a screen recording of a browser has no speech to caption; the step log beside it says what happens
      <video
        ref={ref}
        className="run-video"
        src={props.src}
        controls
        preload="metadata"
        aria-label={props.title}
        width={1280}
        height={720}
      />
    );
  },
);
