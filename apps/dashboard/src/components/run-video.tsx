import { forwardRef } from "react";

/**
 * What the video shows before it plays: a neutral grey. Without one the browser shows the first
 * frame, which for a run is its blank new page, a white box that reads as broken. (A data: image:
 * the page loads nothing from elsewhere, and its Content-Security-Policy allows data: images.)
 */
export const VIDEO_POSTER = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="9"><rect width="16" height="9" fill="#3b4048"/></svg>',
)}`;

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
        poster={VIDEO_POSTER}
        aria-label={props.title}
        width={1280}
        height={720}
      />
    );
  },
);
