import { useRun } from "../../api/use-run.js";
import { AskForm } from "../../components/ask-form.js";
import { LiveView } from "../../components/live-view.js";
import { Loading } from "../../components/loading.js";
import { RunFiles } from "../../components/run-files.js";
import { Section } from "../../components/section.js";
import { Unreadable } from "../../components/unreadable.js";
import { useRunEvents } from "../../live/run-events.js";
import { Link, useTitle } from "../../router.js";
import { failureOf, offsetOfStep } from "./failure.js";
import { LogPanel } from "./log-panel.js";
import { parkedOf } from "./parked.js";
import { lastPause } from "./pause.js";
import { RerunOf } from "./rerun-of.js";
import { RunActions } from "./run-actions.js";
import { RunData } from "./run-data.js";
import { RunFacts } from "./run-facts.js";
import { RunFailure } from "./run-failure.js";
import { RunInputs } from "./run-inputs.js";
import { useVideoSeek } from "./use-video-seek.js";
import { VideoPanel } from "./video-panel.js";

/**
 * One run: what it reruns, its state, inputs, data, error, live step log, video, files and what
 * can be done.
 */
export function RunPage(props: { id: string }) {
  const run = useRun(props.id);
  const log = useRunEvents(props.id);
  const video = useVideoSeek();
  useTitle(run.data ? `Run of ${run.data.name ?? run.data.skill_id}` : "Run");

  if (run.error) {
    return (
      <Unreadable
        title="Run"
        error={run.error}
        prefix={`Run ${props.id} could not be read`}
        back={{ to: "/", text: "Back to the runs" }}
      />
    );
  }
  if (!run.data) return <Loading what="the run" />;
  const current = run.data;
  // The log's steps and the failure move the video only once the run has one.
  const seek = current.video_url ? video.seek : undefined;
  const failure = failureOf(current);
  const pause = current.state === "pause" ? lastPause(log.events) : null;
  // Parked: waiting with no worker, browser or slot (an ended run is not).
  const parked =
    current.state === "pause" || current.state === "play" ? parkedOf(log.events) : null;

  return (
    <article className="run" aria-labelledby="run-title">
      <header className="run-head">
        <div>
          <p className="crumbs">
            <Link to="/">Runs</Link> /
          </p>
          <h1 id="run-title">{current.name ?? current.skill_id}</h1>
          <p className="sub mono">{current.id}</p>
          {current.rerun_of && <RerunOf of={current.rerun_of} />}
        </div>
        <RunActions run={current} paused={pause} />
      </header>
      <RunFacts run={current} pause={pause} parked={parked} />
      {failure && (
        <RunFailure
          failure={failure}
          offsetMs={offsetOfStep(log.events, failure.step)}
          onSeek={seek}
        />
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
        <LogPanel run={current} log={log} parked={parked !== null} onSeek={seek} />
        <VideoPanel
          run={current}
          parked={parked !== null}
          videoRef={video.ref}
          seeked={video.seeked}
          live={<LiveView runId={current.id} />}
        />
      </div>
      <Section name="inputs" title="Inputs">
        <RunInputs inputs={current.inputs} />
      </Section>
      <RunData data={current.data} />
      <RunFiles runId={current.id} />
    </article>
  );
}
