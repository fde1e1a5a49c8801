import type { Logger } from "pino";
import type { ScheduleRepository } from "../db/repositories/schedules.js";
import type { NewTick, TickWrite } from "../db/schedules/ticks.js";
import type { Clock } from "../domain/clock.js";
import { durationText } from "./schedule-timing.js";
import { type ScheduledRunDeps, scheduledRunOf } from "./scheduled-run.js";
import { cronOf, type StoredSchedule } from "./stored-schedule.js";
import { decideTick, missedMessage, ON_TIME_GRACE_MS } from "./tick-decision.js";

export interface SchedulerOptions {
  /** How often the scheduler looks for due ticks: how late a tick may fire on a healthy server. */
  pollMs: number;
  /** How many schedules one round decides, at most. */
  batch: number;
}

export const DEFAULT_SCHEDULER_OPTIONS: SchedulerOptions = { pollMs: 1000, batch: 100 };

export interface SchedulerDeps extends ScheduledRunDeps {
  schedules: ScheduleRepository;
  clock: Clock;
  logger: Logger;
  /** Draws each tick's jitter (0 ≤ r < 1); Math.random by default. */
  random?: () => number;
}

/**
 * The tick loop of `serve` and `worker` (SCHEDULER): fires the schedules' due ticks. Safe in any
 * number of processes: a tick is decided from the schedule's row as read and written only while
 * the row's version is still the one read, in the transaction that queues its run, so exactly one
 * process writes each tick (docs/decisions/0053-schedules.md). Errors are logged and the tick is
 * tried again in the next round.
 */
export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private round: Promise<unknown> | undefined;

  constructor(
    private readonly deps: SchedulerDeps,
    private readonly options: SchedulerOptions = DEFAULT_SCHEDULER_OPTIONS,
  ) {}

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => this.kick(), this.options.pollMs);
    this.kick();
  }

  /** Stops looking for ticks and waits for the round under way. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.round;
  }

  private kick(): void {
    if (this.round !== undefined || this.timer === undefined) return;
    this.round = this.runDue()
      .catch((error: unknown) => this.deps.logger.error({ err: error }, "could not fire schedules"))
      .finally(() => {
        this.round = undefined;
      });
  }

  /**
   * One round: the buffered ticks whose last run has ended, then the ticks due now. Returns how
   * many ticks this process wrote (tests drive rounds with it, on a clock of their own).
   */
  async runDue(): Promise<number> {
    const { schedules, clock, logger } = this.deps;
    let written = 0;
    for (const schedule of await schedules.bufferedReady(this.options.batch)) {
      if (await this.attempt(schedule, () => this.fireBuffered(schedule))) written += 1;
    }
    const now = clock.now();
    for (const schedule of await schedules.due(now, this.options.batch)) {
      if (await this.attempt(schedule, () => this.decide(schedule, now))) written += 1;
    }
    if (written > 0) logger.debug({ written }, "schedule ticks written");
    return written;
  }

  /** One schedule's tick; a failure is logged and left for the next round. */
  private async attempt(schedule: StoredSchedule, tick: () => Promise<boolean>): Promise<boolean> {
    try {
      return await tick();
    } catch (error) {
      this.deps.logger.error({ err: error, scheduleId: schedule.id }, "could not fire a schedule");
      return false;
    }
  }

  /** Decides the schedule's due tick and writes it; false when another process wrote it first. */
  private async decide(schedule: StoredSchedule, now: Date): Promise<boolean> {
    const { nextTickAt, fireAt } = schedule;
    if (nextTickAt === null || fireAt === null) return false;
    const cron = cronOf(schedule);
    const decision = decideTick(
      {
        nextTickAt: nextTickAt.getTime(),
        fireAt: fireAt.getTime(),
        catchupMs: schedule.catchupMs,
        jitterMs: schedule.jitterMs,
      },
      cron,
      now.getTime(),
      this.deps.random ?? Math.random,
    );
    const tickAt = new Date(decision.tickAt);
    const write: TickWrite = {
      scheduleId: schedule.id,
      version: schedule.version,
      set: {
        nextTickAt: decision.next === null ? null : new Date(decision.next.tickAt),
        fireAt: decision.next === null ? null : new Date(decision.next.fireAt),
      },
      run: null,
      ticks: [],
      now,
    };
    const missed = decision.missedBefore && missedMessage(schedule.timezone, decision.missedBefore);
    if (decision.action === "missed") {
      const window = durationText(Math.max(schedule.catchupMs, ON_TIME_GRACE_MS));
      const late = `no server fired it within ${window} of its time (catchup ${durationText(schedule.catchupMs)})`;
      write.ticks.push(skipped(tickAt, "missed", missed ? `${late}; ${missed}` : late));
      return this.deps.schedules.writeTick(write);
    }
    if (missed)
      write.ticks.push(skipped(new Date(decision.missedBefore?.from ?? 0), "missed", missed));
    const open =
      schedule.lastRunId !== null && (await this.deps.schedules.isOpen(schedule.lastRunId));
    if (open && schedule.overlap === "skip") {
      write.ticks.push(
        skipped(tickAt, "overlap", `the last run ${schedule.lastRunId} had not ended`),
      );
    } else if (open && schedule.overlap === "buffer_one") {
      if (schedule.bufferedTickAt === null) {
        write.set.bufferedTickAt = tickAt;
        write.ticks.push({ ...skipped(tickAt, null, null), outcome: "buffered" });
      } else {
        const message = `the last run ${schedule.lastRunId} had not ended and a tick waits for it already`;
        write.ticks.push(skipped(tickAt, "overlap", message));
      }
    } else {
      const made = await scheduledRunOf(this.deps, schedule);
      if ("reason" in made) write.ticks.push(skipped(tickAt, made.reason, made.message));
      else {
        write.run = { row: made.row, scheduledAt: tickAt };
        write.ticks.push({ ...skipped(tickAt, null, null), outcome: "fired" });
      }
    }
    return this.deps.schedules.writeTick(write);
  }

  /** Fires (or drops, saying why) the tick buffered while the last run had not ended. */
  private async fireBuffered(schedule: StoredSchedule): Promise<boolean> {
    const { bufferedTickAt } = schedule;
    if (bufferedTickAt === null) return false;
    const made = await scheduledRunOf(this.deps, schedule);
    const now = this.deps.clock.now();
    return this.deps.schedules.writeTick({
      scheduleId: schedule.id,
      version: schedule.version,
      set: { bufferedTickAt: null },
      run: "reason" in made ? null : { row: made.row, scheduledAt: bufferedTickAt },
      ticks: [],
      settlesBuffered: { skipped: "reason" in made ? made : null },
      now,
    });
  }
}

/** A tick that started no run (`reason` null: the caller says what it is instead). */
function skipped(
  tickAt: Date,
  reason: string | null,
  message: string | null,
): Omit<NewTick, "runId"> {
  return { tickAt, outcome: "skipped", reason, message, manual: false };
}
