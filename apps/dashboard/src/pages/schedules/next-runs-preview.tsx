import { CallFailed, messageOf } from "../../api/errors.js";
import { wallTime } from "./schedule-types.js";
import { useNextRunsPreview } from "./use-next-runs-preview.js";

/** What the cron and zone typed so far would do: the server's next five runs, or its refusal. */
export function NextRunsPreview(props: { cron: string; timezone: string }) {
  const preview = useNextRunsPreview(props.cron, props.timezone);
  return (
    <div className="next-runs-preview" role="status" aria-live="polite">
      <p className="help">Next runs</p>
      {preview.error ? (
        <p className="muted">None: {reasonOf(preview.error)}</p>
      ) : preview.data ? (
        <ol className="next-runs">
          {preview.data.next_runs.map((at) => (
            <li key={at}>
              <time dateTime={at} className="mono">
                {wallTime(at)}
              </time>
            </li>
          ))}
        </ol>
      ) : (
        <p className="muted">…</p>
      )}
    </div>
  );
}

/** The server's words for why there are none: its 422's messages, without where they point. */
function reasonOf(error: unknown): string {
  if (error instanceof CallFailed && error.issues.length > 0) {
    return error.issues.map((issue) => issue.msg).join("; ");
  }
  return messageOf(error);
}
