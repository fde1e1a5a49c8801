import type { Logger } from "pino";
import type { Holder, RunExecutionRepository } from "../db/repositories/run-execution.js";
import type { Clock } from "../domain/clock.js";
import type { RunSecrets } from "../secrets/run-secrets.js";
import type { EventWriter } from "./event-writer.js";
import { RunStop } from "./run-stop.js";
import type { TimeLimit } from "./time-limit.js";

/** The run's latest checkpoint as its process reported it, and whether it was kept. */
export interface LatestCheckpoint {
  step: string;
  seq: number;
  topLevel: boolean;
  json: string;
  /** False when it was over RUN_CHECKPOINT_MAX_BYTES: the run cannot go on from it. */
  kept: boolean;
}

interface Waiting {
  /** `ask`, or a pause asked for (`requested`): parked after PARK_AFTER_SECONDS; `wait`: at once. */
  kind: "ask" | "requested" | "wait";
  /** When a pause expires, or the wait ends (epoch ms). */
  wakeAt: number;
}

export interface RunParkingDeps {
  execution: RunExecutionRepository;
  holder: Holder;
  clock: Clock;
  logger: Logger;
  /** Stopped with RunStop("park") once the run is parked. */
  control: AbortController;
  writer: EventWriter;
  secrets: RunSecrets;
  /** PARK_AFTER_SECONDS, in ms. */
  parkAfterMs: number;
}

/**
 * Parks a run while it waits (docs/decisions/0052-parking.md): an ask or a requested pause that
 * has waited PARK_AFTER_SECONDS, a `wait` longer than that at once, or any of them at once when
 * the worker drains. Parked, the run holds no worker, browser or slot: its checkpoint before the
 * step it waits at is written, its row says so, and its process is stopped (RunStop("park")).
 */
export class RunParking {
  private latest: LatestCheckpoint | undefined;
  private waiting: Waiting | undefined;
  private timer: NodeJS.Timeout | undefined;
  private timeLimit: TimeLimit | undefined;
  private parking: Promise<void> | undefined;

  constructor(private readonly deps: RunParkingDeps) {}

  attach(timeLimit: TimeLimit): void {
    this.timeLimit = timeLimit;
  }

  /** The run's process reported a checkpoint: the one a park goes on from. */
  checkpointed(latest: LatestCheckpoint): void {
    this.latest = latest;
  }

  /** The run is paused until `expiresAt` (epoch ms): parked if it still is after a while. */
  paused(reason: "ask" | "requested", expiresAt: number): void {
    this.begin({ kind: reason, wakeAt: expiresAt }, this.deps.parkAfterMs);
  }

  /**
   * A `wait` step waits until `until` (epoch ms): parked at once when that is further off than
   * PARK_AFTER_SECONDS and within the run's time limit (past it the run times out waiting).
   */
  waits(until: number): void {
    const left = until - this.deps.clock.now().getTime();
    const limit = this.timeLimit?.remaining() ?? 0;
    if (left <= this.deps.parkAfterMs || left >= limit) return;
    this.begin({ kind: "wait", wakeAt: until }, 0);
  }

  /** The wait is over (answered, resumed, given up, the step ended): nothing to park. */
  over(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.waiting = undefined;
  }

  /** Parks the run now if it waits (a draining worker); settles once done or not possible. */
  parkNow(): Promise<void> {
    if (this.waiting === undefined) return Promise.resolve();
    clearTimeout(this.timer);
    return this.park();
  }

  private begin(waiting: Waiting, afterMs: number): void {
    this.over();
    this.waiting = waiting;
    this.timer = setTimeout(() => void this.park(), afterMs);
  }

  private park(): Promise<void> {
    this.parking ??= this.parkOnce().finally(() => {
      this.parking = undefined;
    });
    return this.parking;
  }

  private async parkOnce(): Promise<void> {
    const { execution, holder, clock, logger, control, writer } = this.deps;
    const waiting = this.waiting;
    const latest = this.latest;
    // Without a checkpoint it could go on from, the run keeps its slot while it waits.
    if (waiting === undefined || latest === undefined || !latest.kept || control.signal.aborted) {
      return;
    }
    if (waiting.kind === "wait") this.noteWaitEnd(latest, waiting.wakeAt);
    await writer.flushed();
    // Answered or ended while the step log was written.
    if (this.waiting !== waiting || control.signal.aborted) return;
    const now = clock.now();
    const used = this.timeLimit?.used() ?? 0;
    // A parked wait's time counts against the time limit, as a wait in a slot does.
    const activeMs = waiting.kind === "wait" ? used + (waiting.wakeAt - now.getTime()) : used;
    const wakeAt = new Date(waiting.wakeAt);
    const message = {
      wait: `parked until its wait ends at ${wakeAt.toISOString()}: it holds no worker meanwhile`,
      ask: "waiting for an answer, parked: it holds no worker meanwhile; an answer lets any worker go on",
      requested:
        "waiting to be resumed, parked: it holds no worker meanwhile; a resume lets any worker go on",
    }[waiting.kind];
    const parked = await execution.park(holder, {
      state: waiting.kind === "wait" ? "play" : "pause",
      wakeAt,
      activeMs,
      resumeFrom: latest.step,
      event: {
        runId: holder.runId,
        at: now,
        type: "run_parked",
        message,
        data: { wake_at: wakeAt.toISOString() },
      },
    });
    if (!parked) return;
    logger.info({ wakeAt, step: latest.step }, "run parked");
    control.abort(new RunStop("park"));
  }

  /**
   * The checkpoint before a parked `wait` says when the wait ends, so that the run waits only
   * until then when it goes on: written anew, sealed, with the step log.
   */
  private noteWaitEnd(latest: LatestCheckpoint, wakeAt: number): void {
    const { writer, secrets, holder, clock } = this.deps;
    const checkpoint = JSON.parse(latest.json) as { path: { until?: string }[] };
    const last = checkpoint.path.at(-1);
    if (last === undefined) return;
    last.until = new Date(wakeAt).toISOString();
    const json = JSON.stringify(checkpoint);
    writer.pushCheckpoint({
      label: latest.step,
      seq: latest.seq,
      topLevel: latest.topLevel,
      sealed: secrets.sealCheckpoint(holder.runId, json),
      bytes: Buffer.byteLength(json),
      at: clock.now(),
    });
  }
}
