import type { ReactNode } from "react";
import { formatDuration } from "../time.js";
import type { LogRow } from "./log-rows.js";

/**
 * One row of the step log, indented by its nesting. A step the video shows is a button that
 * moves the video there (`onSeek`, present once the run has a video); a log line never is. The
 * row where the video begins, after rows an earlier video recorded, says so in a line below.
 * `action`, when given, follows the row in its line (its own buttons: buttons do not nest).
 */
export function StepRow(props: {
  row: LogRow;
  onSeek: ((offsetMs: number, label: string) => void) | undefined;
  action?: ReactNode;
  /** The signed address of a run file, once the run's files are listed. */
  fileUrl?: ((name: string) => string | undefined) | undefined;
}) {
  const { row, onSeek, action } = props;
  const seekable = onSeek !== undefined && row.offsetMs !== null && row.status !== "log";
  const body = (
    <>
      <span className={`step-status status-${row.status}`}>
        {/* A run's own event has no status of its own: its label says it. */}
        {row.status === "run" ? "" : row.status}
      </span>
      <span className="step-label">{row.label}</span>
      <span className="step-text">
        {row.text}
        {row.detail !== null && <span className="step-detail mono">{row.detail}</span>}
      </span>
      <span className="step-duration">
        {row.durationMs !== null ? formatDuration(row.durationMs) : ""}
      </span>
    </>
  );
  return (
    <li
      className={`step-row row-${row.status}`}
      style={{ paddingInlineStart: `${row.depth * 1.25}rem` }}
      data-label={row.label}
    >
      {seekable ? (
        <button
          type="button"
          className="step-seek"
          title="Show this step in the video"
          onClick={() => onSeek(row.offsetMs ?? 0, row.label)}
        >
          {body}
          <span className="visually-hidden">, show in the video</span>
        </button>
      ) : (
        <div className="step-line">{body}</div>
      )}
      {row.file !== null && <StepFile name={row.file} url={props.fileUrl?.(row.file)} />}
      {action}
      {onSeek !== undefined && row.videoStart && (
        <p className="muted step-note">
          The video shows the run from here on: the steps above were recorded in an earlier video,
          which is not shown.
        </p>
      )}
    </li>
  );
}

/**
 * The run file a step's end names (a failed browser step's screenshot): a thumbnail linking to
 * it once its signed address is known, its name until then. Outside the row's button, as a link
 * cannot sit inside one.
 */
function StepFile(props: { name: string; url: string | undefined }) {
  const { name, url } = props;
  if (url === undefined) return <span className="step-file muted mono">{name}</span>;
  return (
    <a className="step-file" href={url} target="_blank" rel="noreferrer">
      <img src={url} alt={`${name}: the page as the step failed`} loading="lazy" />
      <span className="mono">{name}</span>
    </a>
  );
}
