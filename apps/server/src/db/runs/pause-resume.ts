import type { PausedFor, ResumeInput } from "../../domain/paused-for.js";
import { type DirectSql, query, type TransactionPlan } from "../direct-sql.js";
import { fromJsonColumn, toJsonColumn } from "../json-column.js";
import type { NewRunEvent } from "../repositories/run-events.js";
import { recordRunChange } from "./changes.js";
import type { RunCommits, Signalled } from "./commit.js";
import { type Holder, insertEvents } from "./record.js";
import {
  CALL_OFF_PAUSE,
  pauseHeldRun,
  REQUEST_PAUSE,
  RESUME_RUN,
  SELECT_HELD_IN_PLAY,
  SELECT_RESUME_INPUT,
  TAKE_RESUME_INPUT,
  UNPAUSE_HELD_RUN,
} from "./sql/pause-resume.js";

// Pausing goes both ways (docs/decisions/0025-pause-and-resume-through-the-watch.md): a client
// asks a run in play to pause and its worker pauses it at the next step boundary (play → pause);
// a client resumes a paused run (pause → play), the answer kept for the worker, which takes it.
// Each write is conditional on the state it expects, so a race with a cancel or a timeout loses
// cleanly.

/** A client asks the owner's run in play to pause. False when it was not in play. */
export async function requestPause(direct: DirectSql, owner: string, id: string) {
  return (await direct.single(REQUEST_PAUSE, [id, owner])).changes === 1;
}

/** A client calls off the pause it asked for. False when none was pending. */
export async function callOffPause(direct: DirectSql, owner: string, id: string) {
  return (await direct.single(CALL_OFF_PAUSE, [id, owner])).changes === 1;
}

/**
 * A client resumes the owner's run from the pause it read (`pausedFor`, as stored) with `input`.
 * False when the run is no longer in that pause.
 */
export function resume(
  commits: RunCommits,
  run: { id: string; owner: string },
  pausedFor: string,
  input: ResumeInput,
  at: Date,
): Promise<boolean> {
  return commits.change(function* (): TransactionPlan<Signalled<boolean>> {
    const { rows, changes } = yield* query<{ parked_at: unknown }>(RESUME_RUN, [
      toJsonColumn(input),
      run.id,
      run.owner,
      pausedFor,
    ]);
    if (changes !== 1) return { value: false };
    yield* recordRunChange(run, "play", at);
    // A parked run waits for any worker to take it, which is told as of a queued run.
    const parked = rows[0]?.parked_at != null;
    return parked ? { value: true, signal: { type: "queued" } } : { value: true };
  });
}

/**
 * The worker moves a run it holds from play to pause, keeping why (`pausedFor`) and recording
 * `event`. A pause a client asked for is written only while the request stands: `called_off`
 * when the client resumed before it, `not_held` when the run is no longer the worker's in play.
 */
export function pause(
  direct: DirectSql,
  holder: Holder,
  pausedFor: PausedFor,
  event: NewRunEvent,
): Promise<"paused" | "called_off" | "not_held"> {
  const requested = pausedFor.reason === "requested";
  const held = [holder.runId, holder.workerId];
  return direct.run(function* () {
    const { rows, changes } = yield* query<{ owner: string }>(pauseHeldRun(requested), [
      toJsonColumn(pausedFor),
      ...held,
    ]);
    const row = rows[0];
    if (changes === 1 && row !== undefined) {
      yield* insertEvents([event]);
      yield* recordRunChange({ id: holder.runId, owner: row.owner }, "pause", event.at);
      return "paused";
    }
    if (requested && (yield* query(SELECT_HELD_IN_PLAY, held)).rows.length === 1) {
      return "called_off";
    }
    return "not_held";
  });
}

/**
 * The worker moves a run it paused back to play without an answer (the step that waited gave
 * up), recording `event`. False when it was not paused under this worker.
 */
export function unpause(direct: DirectSql, holder: Holder, event: NewRunEvent): Promise<boolean> {
  return direct.run(function* (): TransactionPlan<boolean> {
    const { rows } = yield* query<{ owner: string }>(UNPAUSE_HELD_RUN, [
      holder.runId,
      holder.workerId,
    ]);
    const row = rows[0];
    if (row === undefined) return false;
    yield* insertEvents([event]);
    // Endpoints are not told of `play`: the change-feed row is all there is to record.
    yield* recordRunChange({ id: holder.runId, owner: row.owner }, "play", event.at);
    return true;
  });
}

/**
 * What a client resumed the run with, once it is back in play: taken (so it is read once) and
 * `event` recorded. Null while the run is still paused, or not held.
 */
export function takeResume(
  direct: DirectSql,
  holder: Holder,
  event: NewRunEvent,
): Promise<ResumeInput | null> {
  const held = [holder.runId, holder.workerId];
  return direct.run(function* (): TransactionPlan<ResumeInput | null> {
    const { rows } = yield* query<{ resume_input: string }>(SELECT_RESUME_INPUT, held);
    const input = rows[0]?.resume_input;
    if (input === undefined) return null;
    const { changes } = yield* query(TAKE_RESUME_INPUT, [...held, input]);
    if (changes !== 1) return null;
    yield* insertEvents([event]);
    return fromJsonColumn<ResumeInput>(input);
  });
}
