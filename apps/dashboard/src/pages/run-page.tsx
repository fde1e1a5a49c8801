import { isTerminalState, type RunEvent, type RunSession } from "@skillrun/client";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useCallback, useRef, useState } from "react";
import { useApi } from "../api/api-context.js";
import { dataOf, messageOf } from "../api/errors.js";
import { AskForm } from "../components/ask-form.js";
import { CancelButton } from "../components/cancel-button.js";
import { ErrorNote } from "../components/error-note.js";
import { JsonView } from "../components/json-view.js";
import { RunFiles } from "../components/run-files.js";
import { RunState } from "../components/run-state.js";
import { RunVideo } from "../components/run-video.js";
import type { Schema } from "../components/schema-form/schema.js";
import { StepLog } from "../components/step-log/step-log.js";
import { formatDuration, RelativeTime, RunDuration, useNow } from "../components/time.js";
import { runKey } from "../live/query-keys.js";
import { useRunEvents } from "../live/run-events.js";
import { Link, navigate, useTitle } from "../router.js";

const SECRET_MASK = "***";

/** One run: its state, inputs, data, error, live step log, video, files and what can be done. */
export function RunPage(props: { id: string }) {
  const { client } = useApi();
  const now = useNow(1_000);
  const run = useQuery({
    queryKey: runKey(props.id),
    queryFn: async ({ signal }) =>
      dataOf(await client.GET("/run/{id}", { params: { path: { id: props.id } }, signal })),
  });
  const log = useRunEvents(props.id);
  const videoRef = useRef<HTMLVideoElement>(null);
  const [seeked, setSeeked] = useState("");
  const seek = useCallback((offsetMs: number, label: string) => {
    const video = videoRef.current;
    if (!video) return;
    video.currentTime = offsetMs / 1000;
    setSeeked(`Video moved to ${formatDuration(offsetMs)}: ${label}`);
  }, []);
  useTitle(run.data ? `Run of ${run.data.name ?? run.data.skill_id}` : "Run");

  if (run.error) {
    return (
      <section>
        <h1>Run</h1>
        <ErrorNote error={run.error} prefix={`Run ${props.id} could not be read`} />
        <p>
          <Link to="/">Back to the runs</Link>
        </p>
      </section>
    );
  }
  if (!run.data) return <p role="status">Loading the run…</p>;
  const current = run.data;
  const videoUrl = current.video_url ?? null;

  const failure = errorOf(current);
  const failedAt = failure ? offsetOfStep(log.events, failure.step) : null;
  const pause = current.state === "pause" ? lastPause(log.events) : null;

  return (
    <article className="run" aria-labelledby="run-title">
      <header className="run-head">
        <div>
          <p className="crumbs">
            <Link to="/">Runs</Link> /
          </p>
          <h1 id="run-title">{current.name ?? current.skill_id}</h1>
          <p className="sub mono">{current.id}</p>
        </div>
        <RunActions run={current} paused={pause} />
      </header>
      <dl className="facts">
        <div>
          <dt>State</dt>
          <dd aria-live="polite">
            <RunState state={current.state} />
          </dd>
        </div>
        <div>
          <dt>Skill</dt>
          <dd>
            <Link to={`/skills/${encodeURIComponent(current.skill_id)}`}>{current.skill_id}</Link>
          </dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>
            <RelativeTime iso={current.start_time} now={now} />
          </dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>
            <RunDuration start={current.start_time} end={current.end_time} now={now} />
          </dd>
        </div>
      </dl>

      {failure && (
        <section className="failure" role="alert" aria-labelledby="failure-title">
          <h2 id="failure-title">Failed at {failure.step ?? "the run"}</h2>
          <p>{failure.message}</p>
          {failedAt !== null && videoUrl && (
            <button
              type="button"
              className="secondary"
              onClick={() => seek(failedAt, failure.step ?? "")}
            >
              Show the failed step in the video
            </button>
          )}
        </section>
      )}

      {pause?.reason === "ask" && (
        <AskForm
          key={pause.eventId}
          runId={current.id}
          prompt={pause.prompt}
          schema={pause.schema}
        />
      )}

      <div className="run-grid">
        <section aria-labelledby="log-title" className="log-panel">
          <h2 id="log-title">Step log</h2>
          <p className="muted" aria-live="polite">
            {log.complete
              ? "The run has ended; this is its whole log."
              : isTerminalState(current.state)
                ? ""
                : "Live: steps appear as they run."}
          </p>
          <ErrorNote error={log.error} prefix="The step log stopped" />
          <StepLog events={log.events} onSeek={videoUrl ? seek : undefined} />
        </section>
        <section aria-labelledby="video-title" className="video-panel">
          <h2 id="video-title">Video</h2>
          {videoUrl ? (
            <>
              <RunVideo ref={videoRef} src={videoUrl} title={`Video of run ${current.id}`} />
              <p className="muted" role="status">
                {seeked || "Choose a step in the log to see it in the video."}
              </p>
            </>
          ) : (
            <div className="video-placeholder">
              <p>
                {isTerminalState(current.state)
                  ? "No video: this run opened no browser, or its video is still being saved."
                  : "A run that opens a browser has its video here once it ends."}
              </p>
            </div>
          )}
        </section>
      </div>

      <section aria-labelledby="inputs-title">
        <h2 id="inputs-title">Inputs</h2>
        <Inputs inputs={current.inputs} />
      </section>
      <section aria-labelledby="data-title">
        <h2 id="data-title">Data</h2>
        {current.data && Object.keys(current.data).length > 0 ? (
          <JsonView value={current.data} summary="The data the run saved (JSON)" />
        ) : (
          <p className="muted">Nothing saved yet.</p>
        )}
      </section>
      <RunFiles runId={current.id} />
    </article>
  );
}

function Inputs(props: { inputs: RunSession["inputs"] }) {
  const entries = Object.entries(props.inputs ?? {});
  if (entries.length === 0) return <p className="muted">No inputs.</p>;
  return (
    <dl className="inputs">
      {entries.map(([key, value]) => (
        <div key={key}>
          <dt className="mono">{key}</dt>
          <dd className="mono">
            {value === SECRET_MASK ? (
              <span>
                ••••••<span className="muted"> (secret, hidden)</span>
              </span>
            ) : (
              JSON.stringify(value)
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}

function RunActions(props: { run: RunSession; paused: Pause | null }) {
  const { client } = useApi();
  const { run } = props;
  const pause = useMutation({
    mutationFn: async () =>
      dataOf(await client.POST("/run/{id}/pause", { params: { path: { id: run.id } } })),
  });
  const resume = useMutation({
    mutationFn: async () =>
      dataOf(await client.POST("/run/{id}/resume", { params: { path: { id: run.id } }, body: {} })),
  });
  const again = useMutation({
    mutationFn: async () => {
      const masked = Object.values(run.inputs ?? {}).includes(SECRET_MASK);
      // A secret input's value is not given back by the API: ask for it again in the form.
      if (masked) return null;
      return dataOf(
        await client.POST("/run/", {
          body: { skill_id: run.skill_id, inputs: run.inputs ?? null },
        }),
      );
    },
    onSuccess: (started) => {
      if (started) navigate(`/runs/${encodeURIComponent(started.id)}`);
      else
        navigate(`/skills/${encodeURIComponent(run.skill_id)}?again=${encodeURIComponent(run.id)}`);
    },
  });
  const error = pause.error ?? resume.error ?? again.error;
  const ended = isTerminalState(run.state);
  return (
    <div className="run-actions">
      <div className="buttons">
        {!ended && <CancelButton id={run.id} label="Cancel the run" />}
        {run.state === "play" && (
          <button
            type="button"
            className="secondary"
            disabled={pause.isPending}
            onClick={() => pause.mutate()}
          >
            Pause
          </button>
        )}
        {run.state === "pause" && props.paused?.reason !== "ask" && (
          <button
            type="button"
            className="secondary"
            disabled={resume.isPending}
            onClick={() => resume.mutate()}
          >
            Resume
          </button>
        )}
        <button
          type="button"
          className="secondary"
          disabled={again.isPending}
          onClick={() => again.mutate()}
        >
          Run again
        </button>
      </div>
      {error && (
        <p className="error" role="alert">
          {messageOf(error)}
        </p>
      )}
    </div>
  );
}

interface Pause {
  /** The `run_paused` event's id: a later pause is a new question. */
  eventId: number;
  reason: string;
  prompt: string;
  schema: Schema | undefined;
}

function lastPause(events: RunEvent[]): Pause | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (event?.type === "run_resumed") return null;
    if (event?.type === "run_paused") {
      const data = (event.data ?? {}) as { reason?: string; prompt?: string; schema?: Schema };
      return {
        eventId: event.id,
        reason: data.reason ?? "requested",
        prompt: data.prompt ?? "",
        schema: data.schema,
      };
    }
  }
  return null;
}

function errorOf(run: RunSession): { step: string | null; message: string } | null {
  const error = (run.data as { error?: { step?: string | null; message?: string } } | null)?.error;
  if (!error || (run.state !== "reset" && run.state !== "timeout")) return null;
  return { step: error.step ?? null, message: error.message ?? "" };
}

function offsetOfStep(events: RunEvent[], label: string | null): number | null {
  if (!label) return null;
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (event?.step?.label === label && event.video_offset_ms != null) return event.video_offset_ms;
  }
  return null;
}
