import { type PauseRequest, setLongTimeout } from "@skillrun/engine";
import type { Logger } from "pino";
import type { NewRunEvent } from "../db/repositories/run-events.js";
import type {
  HeldRunState,
  Holder,
  RunExecutionRepository,
} from "../db/repositories/run-execution.js";
import type { Clock } from "../domain/clock.js";
import type { PausedFor } from "../domain/paused-for.js";
import type { RunParking } from "./run-parking.js";
import { RunStop } from "./run-stop.js";
import type { TimeLimit } from "./time-limit.js";

/** The paused run's wait for its answer. */
interface Waiting {
  resolve: (answer: unknown) => void;
  reject: (reason: unknown) => void;
  /** A look for a stored resume under way: true when it found one. */
  check?: Promise<boolean>;
}

/** How long a run paused by `POST /run/{id}/pause` waits to be resumed before it times out. */
export const REQUESTED_PAUSE_MS = 60 * 60 * 1000;

/**
 * What the worker's watch (every 200 ms) reads of a run it executes, passed on to the run: a
 * pause a client asked for, or a resume. The watch is the one channel, so a worker hears of both
 * through any server on any flavour.
 */
export class RunWatch {
  private listener: ((run: HeldRunState, readAt: number) => void) | undefined;

  /** `readAt`: when the read began (Date.now()), to tell a read older than a change. */
  heard(run: HeldRunState, readAt: number): void {
    this.listener?.(run, readAt);
    this.liveListener?.(run.watchEndsAt);
  }

  private liveListener: ((watchEndsAt: Date | null) => void) | undefined;

  /** Hears until when somebody watches the run's live view (see LiveRelay). */
  onLive(listener: (watchEndsAt: Date | null) => void): void {
    this.liveListener = listener;
  }

  listen(listener: (run: HeldRunState, readAt: number) => void): void {
    this.listener = listener;
  }

  private parker: (() => Promise<void>) | undefined;

  /** How the run is parked at once, should the worker drain while it waits. */
  onPark(park: () => Promise<void>): void {
    this.parker = park;
  }

  /** Parks the run now if it waits (see RunParking.parkNow); settles at once otherwise. */
  parkNow(): Promise<void> {
    return this.parker?.() ?? Promise.resolve();
  }
}

/** The writes a run's pauses make: the repository's on a worker, over HTTP on an agent. */
export type PauseWrites = Pick<RunExecutionRepository, "pause" | "unpause" | "takeResume">;

interface RunPauseDeps {
  execution: PauseWrites;
  holder: Holder;
  clock: Clock;
  logger: Logger;
  /** Stops the run: past an ask's timeout, or a requested pause's. */
  control: AbortController;
  /** Settles once the events reported so far are written, so run_paused comes after them. */
  eventsWritten: () => Promise<void>;
  /** Parks the run while it stays paused (see RunParking). */
  parking?: RunParking;
}

/**
 * A run's pauses, on its worker: writes play → pause when the engine pauses (an `ask`, or before
 * a step when a client asked), stops the run's time limit meanwhile, waits for the API's
 * pause → play and hands the answer to the engine, and ends the run in `timeout` when nobody
 * answers in time. Cancel and shutdown stop a paused run as any other.
 */
export class RunPause {
  private timeLimit: TimeLimit | undefined;
  private requestPause: (() => void) | undefined;
  /** A client's pause request was passed to the engine and has not been used yet. */
  private forwarded = false;
  /** The engine has paused and the pause is being written. */
  private pausing = false;
  /** When the last pause was written (Date.now()): reads begun before it are stale. */
  private pausedAt = 0;
  private waiting: Waiting | undefined;
  /** The engine gave up the pause while it was being written. */
  private givenUpWhilePausing = false;
  /** The move back to play of a pause the engine gave up, until written. */
  private leaving: Promise<void> = Promise.resolve();
  /** The answer a client gave while the run was parked, for the ask it goes on at. */
  private preAnswer: { answer: unknown } | undefined;

  constructor(
    private readonly deps: RunPauseDeps,
    watch: RunWatch,
  ) {
    watch.listen((run, readAt) => this.heard(run, readAt));
  }

  /** The run's time limit (stopped while paused) and how to ask its engine for a pause. */
  attach(timeLimit: TimeLimit, requestPause: () => void): void {
    this.timeLimit = timeLimit;
    this.requestPause = requestPause;
  }

  /**
   * A woken run was answered while it was parked: the ask it goes on at (the step it was parked
   * at, run again) takes this answer instead of pausing again.
   */
  answeredWhileParked(answer: unknown): void {
    this.preAnswer = { answer };
  }

  /** The engine paused: write it, then wait until a client resumes the run; gives the answer. */
  async paused(request: PauseRequest): Promise<unknown> {
    const { execution, holder, clock, control } = this.deps;
    if (request.reason === "ask" && this.preAnswer !== undefined) {
      const { answer } = this.preAnswer;
      this.preAnswer = undefined;
      return answer;
    }
    this.timeLimit?.suspend();
    const waitMs = request.reason === "ask" ? request.timeoutMs : REQUESTED_PAUSE_MS;
    const { pausedFor, event } = pauseOf(holder.runId, request, clock.now(), waitMs);
    this.pausing = true;
    this.givenUpWhilePausing = false;
    let written: "paused" | "called_off" | "not_held";
    try {
      // A retried ask pauses again at once: after the last pause is undone, not before.
      await this.leaving;
      await this.deps.eventsWritten();
      written = await execution.pause(holder, pausedFor, event);
    } finally {
      // Whatever a read begun before now says of a pause request, it is the one just used.
      this.pausedAt = Date.now();
      this.pausing = false;
      this.forwarded = false;
    }
    if (written === "called_off") {
      // The client resumed before the engine reached the step: nothing was paused.
      this.timeLimit?.resume();
      return undefined;
    }
    if (written === "not_held") {
      // Cancelled, or no longer this worker's: the watch stops the run.
      this.timeLimit?.resume();
      throw new Error("the run could not be paused");
    }
    if (this.givenUpWhilePausing) {
      this.leaving = this.unpause();
      throw new Error("the pause was given up");
    }
    this.deps.logger.info({ reason: request.reason, step: request.step.label }, "run paused");
    const unanswered =
      request.reason === "ask"
        ? `no answer to step ${request.step.label} within ${formatWait(waitMs)}`
        : `the run stayed paused for ${formatWait(waitMs)} without being resumed`;
    let rejectWait: ((reason: unknown) => void) | undefined;
    const onAbort = () => rejectWait?.(control.signal.reason);
    control.signal.addEventListener("abort", onAbort, { once: true });
    let expire = () => {};
    this.deps.parking?.paused(pausedFor.reason, Date.parse(pausedFor.expires_at));
    try {
      return await new Promise<unknown>((resolve, reject) => {
        const waiting: Waiting = { resolve, reject };
        this.waiting = waiting;
        rejectWait = reject;
        if (control.signal.aborted) reject(control.signal.reason);
        expire = setLongTimeout(() => {
          // An answer stored just before the time ran out is honoured (the API takes none after).
          void this.check(waiting).then((answered) => {
            if (!answered) control.abort(new RunStop("timeout", unanswered));
          });
        }, waitMs);
      });
    } finally {
      this.deps.parking?.over();
      this.waiting = undefined;
      expire();
      control.signal.removeEventListener("abort", onAbort);
    }
  }

  private heard(run: HeldRunState, readAt: number): void {
    const waiting = this.waiting;
    if (waiting !== undefined) {
      if (run.state === "play") void this.check(waiting);
      return;
    }
    // Not yet attached: the run is still starting (its engine has no job yet). A later read
    // passes the request on.
    if (this.requestPause === undefined) return;
    if (this.pausing || this.forwarded) return;
    if (run.state !== "play" || !run.pauseRequested) return;
    // Read before the last pause was written: that request was the one used.
    if (readAt < this.pausedAt) return;
    this.forwarded = true;
    this.requestPause();
  }

  /**
   * The engine gave up waiting (a step's or block's timeout ran out, and the run goes on): the
   * run is moved back to play unless a client resumed it or it ended meanwhile.
   */
  abandoned(): Promise<void> {
    const waiting = this.waiting;
    if (waiting === undefined) {
      // Still being written: undone as soon as it is.
      if (this.pausing) this.givenUpWhilePausing = true;
      return this.leaving;
    }
    waiting.reject(new Error("the pause was given up"));
    this.leaving = this.unpause();
    return this.leaving;
  }

  /**
   * Resolves once a pause given up has been undone (the run is back in play): the run's ending
   * is written after it, never before, or it would find the run still paused.
   */
  left(): Promise<void> {
    return this.leaving;
  }

  private async unpause(): Promise<void> {
    const { execution, holder, clock, logger } = this.deps;
    try {
      await execution.unpause(holder, unpausedEventOf(holder.runId, clock.now()));
    } catch (error) {
      logger.error({ err: error }, "could not move a run back to play");
    }
    this.timeLimit?.resume();
  }

  /** Looks for a stored resume (one look at a time); resolves the wait with it when found. */
  private check(waiting: Waiting): Promise<boolean> {
    waiting.check ??= this.takeResume(waiting).finally(() => {
      waiting.check = undefined;
    });
    return waiting.check;
  }

  private async takeResume(waiting: Waiting): Promise<boolean> {
    const { execution, holder, clock, logger } = this.deps;
    try {
      const event = resumedEventOf(holder.runId, clock.now());
      const resumed = await execution.takeResume(holder, event);
      if (resumed === null) return false;
      logger.info("run resumed");
      this.timeLimit?.resume();
      waiting.resolve(resumed.answer);
      return true;
    } catch (error) {
      logger.error({ err: error }, "could not read a run's resume");
      return false;
    }
  }
}

/** How a pause is written: why and until when the run waits, and its `run_paused` event. */
function pauseOf(
  runId: string,
  request: PauseRequest,
  at: Date,
  waitMs: number,
): { pausedFor: PausedFor; event: NewRunEvent } {
  const expiresAt = new Date(at.getTime() + waitMs).toISOString();
  const pausedFor: PausedFor =
    request.reason === "ask"
      ? {
          reason: "ask",
          step: request.step.label,
          prompt: request.prompt,
          schema: request.schema,
          expires_at: expiresAt,
        }
      : { reason: "requested", step: request.step.label, expires_at: expiresAt };
  return { pausedFor, event: pausedEventOf(runId, request.step, pausedFor, at) };
}

/** The `run_paused` event of a pause (a worker's, or an agent's). */
export function pausedEventOf(
  runId: string,
  step: NonNullable<NewRunEvent["step"]>,
  pausedFor: PausedFor,
  at: Date,
): NewRunEvent {
  const { step: _label, ...data } = pausedFor;
  return {
    runId,
    at,
    type: "run_paused",
    step,
    message:
      pausedFor.reason === "ask"
        ? `waiting for an answer until ${pausedFor.expires_at}: ${pausedFor.prompt}`
        : `paused at a client's request until ${pausedFor.expires_at}`,
    data,
  };
}

/** The `run_resumed` event of a run a client resumed. */
export function resumedEventOf(runId: string, at: Date): NewRunEvent {
  return { runId, at, type: "run_resumed", message: "resumed by a client" };
}

/** The `run_resumed` event of a run whose ask gave up waiting. */
export function unpausedEventOf(runId: string, at: Date): NewRunEvent {
  return {
    runId,
    at,
    type: "run_resumed",
    message: "the step waiting for an answer ran out of time; the run goes on without one",
  };
}

function formatWait(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${Math.round(ms / 100) / 10}s`;
}
