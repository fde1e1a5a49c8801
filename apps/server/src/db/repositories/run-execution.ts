import type { Clock } from "../../domain/clock.js";
import type { PausedFor, ResumeInput } from "../../domain/paused-for.js";
import type { Flavour } from "../database-url.js";
import type { DirectSql } from "../direct-sql.js";
import { recordCancelled } from "../runs/cancel.js";
import { type KeptCheckpoint, readCheckpoint, type StoredCheckpoint } from "../runs/checkpoints.js";
import { type ClaimedRun, claim, type HeldRunState, renewLeases, statesOf } from "../runs/claim.js";
import { end, type WorkerEnding } from "../runs/end.js";
import { expireWaitingClientRuns } from "../runs/expire-client.js";
import { expireParked, type Parking, park } from "../runs/park.js";
import { pause, takeResume, unpause } from "../runs/pause-resume.js";
import { type Holder, type RunWrite, record } from "../runs/record.js";
import { recoverLost, release } from "../runs/recover.js";
import type { NewRunEvent } from "./run-events.js";

export type { ClaimedRun, HeldRunState, Holder, WorkerEnding };

/**
 * The worker's side of runs, each write in its lifecycle file under db/runs/. Every change is
 * one conditional UPDATE whose WHERE holds the state machine's allowed sources
 * (domain/run-state-machine.ts), none of them terminal, and the worker's lease: races resolve in
 * the database, a terminal run's row is never written again, and two workers never both win the
 * same run (docs/decisions/0021-state-changes-are-conditional-updates.md). Events that record a
 * change are written in its transaction, only when the change happened.
 */
export class RunExecutionRepository {
  private readonly db: { direct: DirectSql; flavour: Flavour };
  /**
   * Told of the runs the sweeps below end (no worker's or agent's ending counts them): the
   * process's metrics (runtime.ts).
   */
  endings: { runEnded(state: "reset" | "timeout"): void } | undefined;

  constructor(
    private readonly direct: DirectSql,
    private readonly clock: Clock,
    /** Which SQL dialect the claim and the ending are written in. */
    flavour: Flavour,
    /** OWNER_MAX_RUNNING: runs one owner may have holding a worker; null for no limit. */
    private readonly ownerMaxRunning: number | null = null,
  ) {
    this.db = { direct, flavour };
  }

  /**
   * Takes the fair queue's next run (→ play, leased for `leaseMs`); null when no queued run may
   * start.
   */
  claim(
    workerId: string,
    leaseMs: number,
    /** An agent's claim: its owner's client runs only (see claim.ts). */
    agent?: { owner: string; name: string },
  ): Promise<ClaimedRun | null> {
    const now = this.clock.now();
    const until = new Date(now.getTime() + leaseMs);
    return claim(this.db, workerId, now, until, this.ownerMaxRunning, agent);
  }

  /** Extends the lease of every run in `runIds` that `workerId` still holds. */
  renewLeases(workerId: string, runIds: string[], leaseMs: number): Promise<void> {
    const until = new Date(this.clock.now().getTime() + leaseMs);
    return renewLeases(this.direct, workerId, runIds, until);
  }

  /** The current state and holder of each run, to learn of cancels and lost claims. */
  statesOf(runIds: string[]): Promise<HeldRunState[]> {
    return statesOf(this.direct, runIds);
  }

  /** Appends events and checkpoints to a run `holder` holds, and its data (see record.ts). */
  record(holder: Holder, write: RunWrite): Promise<boolean> {
    return record(this.direct, holder, write);
  }

  /** The run's checkpoint before step `label`, or its latest when `label` is null. */
  checkpoint(runId: string, label: string | null): Promise<KeptCheckpoint | null> {
    return readCheckpoint(this.direct, runId, label);
  }

  /** Parks a run the worker holds (see park.ts); false when it no longer holds it. */
  park(holder: Holder, parking: Parking): Promise<boolean> {
    return park(this.direct, holder, parking);
  }

  /** Ends parked pauses past their expiry in timeout; returns how many. */
  async expireParked(): Promise<number> {
    return told(this.endings, "timeout", await expireParked(this.direct, this.clock.now()));
  }

  /** Ends in timeout the queued client runs no agent took within their time limit. */
  async expireWaitingClientRuns(): Promise<number> {
    const expired = await expireWaitingClientRuns(this.direct, this.clock.now());
    return told(this.endings, "timeout", expired);
  }

  /** Forgets a run's checkpoints: it starts over from its first step. */
  async forgetCheckpoints(runId: string): Promise<void> {
    await this.direct.single("DELETE FROM run_checkpoints WHERE run_id = ?", [runId]);
  }

  /** Moves a run the worker holds from play to pause (see pause-resume.ts). */
  pause(
    holder: Holder,
    pausedFor: PausedFor,
    event: NewRunEvent,
  ): Promise<"paused" | "called_off" | "not_held"> {
    return pause(this.direct, holder, pausedFor, event);
  }

  /** Moves a run the worker paused back to play without an answer. */
  unpause(holder: Holder, event: NewRunEvent): Promise<boolean> {
    return unpause(this.direct, holder, event);
  }

  /** Takes what a client resumed the run with; null while it is paused, or not held. */
  takeResume(holder: Holder, event: NewRunEvent): Promise<ResumeInput | null> {
    return takeResume(this.direct, holder, event);
  }

  /** Records where a cancelled run stopped; false when it is not cancelled under this worker. */
  recordCancelled(
    holder: Holder,
    event: NewRunEvent,
    earlier: readonly NewRunEvent[] = [],
  ): Promise<boolean> {
    return recordCancelled(this.direct, holder, event, earlier);
  }

  /**
   * Ends the run as `end` does; when a cancel came first (between the run's last step and this
   * write), records where it stopped instead, as for any cancelled run: `earlier` and a
   * `run_cancelled` event, fenced on the cancel naming this worker. True when the ending was
   * written; false when it had ended elsewhere (that ending stands).
   */
  async endOrRecordCancel(
    holder: Holder,
    to: WorkerEnding,
    data: Record<string, unknown>,
    event: NewRunEvent,
    earlier: readonly NewRunEvent[] = [],
    checkpoints: readonly StoredCheckpoint[] = [],
  ): Promise<boolean> {
    if (await this.end(holder, to, data, event, earlier, checkpoints)) return true;
    const { runId, at, durationMs } = event;
    const message = "the run was cancelled as it ended";
    await this.recordCancelled(
      holder,
      {
        runId,
        at,
        type: "run_cancelled",
        message,
        ...(durationMs !== undefined && { durationMs }),
      },
      earlier,
    );
    return false;
  }

  /** Ends a run the worker holds in `to` (see end.ts); false when it was no longer its to end. */
  end(
    holder: Holder,
    to: WorkerEnding,
    data: Record<string, unknown>,
    event: NewRunEvent,
    earlier: readonly NewRunEvent[] = [],
    checkpoints: readonly StoredCheckpoint[] = [],
  ): Promise<boolean> {
    return end(this.db, holder, to, data, event, earlier, checkpoints);
  }

  /** Puts a run the worker holds back in the queue; false when it was no longer the worker's. */
  release(holder: Holder, event: NewRunEvent): Promise<boolean> {
    return release(this.direct, holder, event);
  }

  /** Recovers runs whose worker stopped renewing its lease; returns how many. */
  async recoverLost(maxAttempts: number): Promise<number> {
    const { requeued, reset } = await recoverLost(this.direct, this.clock.now(), maxAttempts);
    return requeued + told(this.endings, "reset", reset);
  }
}

/** Who hears of the runs a sweep ended (RunExecutionRepository.endings). */
type Endings = RunExecutionRepository["endings"];

/** Tells `endings` of `count` runs a sweep ended in `state`; returns `count`. */
function told(endings: Endings, state: "reset" | "timeout", count: number): number {
  for (let i = 0; i < count; i++) endings?.runEnded(state);
  return count;
}
