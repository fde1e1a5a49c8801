import express, { type Router } from "express";
import type { RunRepository } from "../db/repositories/runs.js";
import type { ScheduleChange, ScheduleRepository } from "../db/repositories/schedules.js";
import type { SkillRepository } from "../db/repositories/skills.js";
import { isStorableText } from "../db/storable-text.js";
import type { Clock } from "../domain/clock.js";
import {
  QueueFull,
  RequestInvalid,
  ScheduleInputsInvalid,
  ScheduleNotFound,
  SkillNotFound,
  type ValidationIssue,
} from "../domain/errors.js";
import { newScheduleId } from "../domain/ids.js";
import { checkRunInputs, type RunInputChecks } from "../domain/run-inputs.js";
import { ownerOf } from "../http/auth.js";
import { type BodyOf, operation } from "../http/operation.js";
import { firstTick, PAUSE, resumeChange } from "../schedules/pause-resume.js";
import type { ScheduleCron } from "../schedules/schedule-cron.js";
import { checkTiming, durationText, type TimingFields } from "../schedules/schedule-timing.js";
import { scheduledRunOf } from "../schedules/scheduled-run.js";
import { type StoredSchedule, toSchedule } from "../schedules/stored-schedule.js";

// How often a change is tried again when a tick moved the schedule on between its read and write.
const CHANGE_ATTEMPTS = 5;

export interface SchedulesRouterDeps extends RunInputChecks {
  schedules: ScheduleRepository;
  skills: SkillRepository;
  runs: RunRepository;
  clock: Clock;
  /** SCHEDULE_MIN_INTERVAL_SECONDS, in ms: how often a schedule may fire at most. */
  minIntervalMs: number;
  /** Draws the first tick's jitter (0 ≤ r < 1); Math.random by default. */
  random?: () => number;
}

/**
 * The schedule operations of openapi.yaml. Inputs are checked as POST /run/ checks them, timing
 * by schedules/schedule-timing.ts; every problem of a request is one 422 with all of them, and
 * nothing is written.
 */
export function schedulesRouter(deps: SchedulesRouterDeps): Router {
  const { schedules, skills, clock } = deps;
  const router = express.Router();
  // An id the database could not hold names no schedule (and must not reach a query).
  router.param("id", (_req, _res, next, id: string) => {
    next(isStorableText(id) ? undefined : new ScheduleNotFound());
  });

  const firstTickOf = (cron: ScheduleCron, jitterMs: number, now: Date) =>
    firstTick(cron, jitterMs, now, deps.random);

  router.post(
    "/schedule",
    operation("createSchedule", async (req, res) => {
      const owner = ownerOf(req);
      const body = req.body;
      const found = await skills.getToRun(owner, body.skill_id);
      if (!found) throw new SkillNotFound();
      const now = clock.now();
      const issues: ValidationIssue[] = [];
      const inputs = await checkedInputs(deps, owner, found, body.inputs, issues);
      const timing = checkTiming(
        {
          cron: body.cron,
          timezone: body.timezone ?? "UTC",
          catchup: body.catchup ?? "0",
          jitter: body.jitter ?? "0",
        },
        deps.minIntervalMs,
        now,
      );
      if (!timing.ok) issues.push(...timing.issues);
      if (issues.length > 0 || inputs === null || !timing.ok) throw new RequestInvalid(issues);
      const id = newScheduleId();
      const paused = body.paused ?? false;
      const created = await schedules.create({
        id,
        owner,
        skillId: found.skill.id,
        ...schedules.sealInputs(id, found.skill.inputs, inputs),
        ...timing.timing,
        overlap: body.overlap ?? "skip",
        paused,
        pausedReason: paused ? "requested" : null,
        pauseAfterFailures: body.pause_after_failures ?? null,
        ...firstTickOf(timing.cron, timing.timing.jitterMs, now),
        createdAt: now,
      });
      if (created === null) {
        throw new RequestInvalid([
          {
            loc: ["body"],
            msg: `Value error, an owner has at most ${schedules.maxPerOwner} schedules (SCHEDULES_PER_OWNER); delete one first`,
            type: "value_error",
          },
        ]);
      }
      res.status(201).json(toSchedule(created, now));
    }),
  );

  // What a schedule of this cron would do, checked and computed as createSchedule does it.
  router.post(
    "/schedule/next_runs",
    operation("previewScheduleRuns", async (req, res) => {
      const body = req.body;
      const now = clock.now();
      const timing = checkTiming(
        { cron: body.cron, timezone: body.timezone ?? "UTC", catchup: "0", jitter: "0" },
        deps.minIntervalMs,
        now,
      );
      if (!timing.ok) throw new RequestInvalid(timing.issues);
      res.json({
        cron: timing.timing.cron,
        timezone: timing.timing.timezone,
        next_runs: timing.cron.nextFormatted(now.getTime()),
      });
    }),
  );

  // Declared before /schedule/:id so that `list` is never taken for an id.
  router.get(
    "/schedule/list",
    operation("listSchedules", async (req, res) => {
      const now = clock.now();
      res.json((await schedules.list(ownerOf(req))).map((s) => toSchedule(s, now)));
    }),
  );

  router.get(
    "/schedule/:id",
    operation("getSchedule", async (req, res) => {
      const schedule = await schedules.get(ownerOf(req), req.params.id);
      if (schedule === null) throw new ScheduleNotFound();
      res.json(toSchedule(schedule, clock.now()));
    }),
  );

  router.patch(
    "/schedule/:id",
    operation("updateSchedule", async (req, res) => {
      const owner = ownerOf(req);
      const { id } = req.params;
      for (let attempt = 1; attempt <= CHANGE_ATTEMPTS; attempt++) {
        const current = await schedules.get(owner, id);
        if (current === null) throw new ScheduleNotFound();
        const change = await changeOf(current, req.body);
        if (await schedules.update(owner, id, current.version, change)) {
          const changed = await schedules.get(owner, id);
          if (changed === null) throw new ScheduleNotFound();
          res.json(toSchedule(changed, clock.now()));
          return;
        }
      }
      throw new Error(
        `schedule ${id} kept changing under ${CHANGE_ATTEMPTS} attempts to change it`,
      );
    }),
  );

  /** The columns a PATCH body sets on `current`; a 422 with every problem it has. */
  async function changeOf(
    current: StoredSchedule,
    body: BodyOf<"updateSchedule">,
  ): Promise<ScheduleChange> {
    const now = clock.now();
    const issues: ValidationIssue[] = [];
    const change: ScheduleChange = {};
    if (body.inputs !== undefined) {
      const found = await skills.getToRun(current.owner, current.skillId);
      if (found === null) {
        issues.push({
          loc: ["body", "inputs"],
          msg: `Value error, the schedule's skill ${current.skillId} was deleted: its inputs cannot be checked`,
          type: "value_error",
        });
      } else {
        const inputs = await checkedInputs(deps, current.owner, found, body.inputs, issues);
        if (inputs !== null)
          Object.assign(change, schedules.sealInputs(current.id, found.skill.inputs, inputs));
      }
    }
    const fields: TimingFields = {
      cron: body.cron ?? current.cron,
      timezone: body.timezone ?? current.timezone,
      catchup: body.catchup ?? durationText(current.catchupMs),
      jitter: body.jitter ?? durationText(current.jitterMs),
    };
    const retimed = [body.cron, body.timezone, body.catchup, body.jitter].some(
      (v) => v !== undefined,
    );
    const timing = retimed ? checkTiming(fields, deps.minIntervalMs, now) : null;
    if (timing !== null && !timing.ok) issues.push(...timing.issues);
    if (issues.length > 0) throw new RequestInvalid(issues);
    if (body.overlap !== undefined) change.overlap = body.overlap;
    if (body.pause_after_failures !== undefined)
      change.pauseAfterFailures = body.pause_after_failures;
    const resumes = body.paused === false && current.paused;
    if (body.paused === true && !current.paused) Object.assign(change, PAUSE);
    else if (resumes) Object.assign(change, resumeChange(current, now, deps.random));
    if (timing?.ok) {
      Object.assign(change, timing.timing);
      // A new cron, zone or jitter counts the next tick from now.
      if (body.cron !== undefined || body.timezone !== undefined || body.jitter !== undefined) {
        Object.assign(change, firstTickOf(timing.cron, timing.timing.jitterMs, now));
      }
    }
    return change;
  }

  router.delete(
    "/schedule/:id",
    operation("deleteSchedule", async (req, res) => {
      if (!(await schedules.delete(ownerOf(req), req.params.id))) throw new ScheduleNotFound();
      res.status(204).end();
    }),
  );

  router.post(
    "/schedule/:id/trigger",
    operation("triggerSchedule", async (req, res) => {
      const owner = ownerOf(req);
      const schedule = await schedules.get(owner, req.params.id);
      if (schedule === null) throw new ScheduleNotFound();
      const made = await scheduledRunOf(deps, schedule);
      if ("reason" in made) {
        if (made.reason === "skill_not_found") throw new SkillNotFound();
        if (made.reason === "queue_full") throw new QueueFull();
        throw new ScheduleInputsInvalid(`${made.message}; PATCH the schedule's inputs`);
      }
      const now = clock.now();
      const written = await schedules.writeTick({
        scheduleId: schedule.id,
        version: null,
        set: {},
        run: { row: made.row, scheduledAt: now },
        ticks: [{ tickAt: now, outcome: "fired", reason: null, message: null, manual: true }],
        now,
      });
      // Deleted meanwhile: nothing was written.
      if (!written) throw new ScheduleNotFound();
      const run = await deps.runs.get(owner, made.row.id);
      if (run === null) throw new Error(`the run ${made.row.id} a trigger queued is missing`);
      res.status(201).json({ ...run, video_url: null });
    }),
  );

  router.get(
    "/schedule/:id/ticks",
    operation("listScheduleTicks", async (req, res) => {
      const ticks = await schedules.ticks(ownerOf(req), req.params.id, req.query.limit ?? 100);
      if (ticks === null) throw new ScheduleNotFound();
      res.json(ticks);
    }),
  );

  return router;
}

/** The inputs checked as POST /run/ checks them; null with the problems added to `issues`. */
async function checkedInputs(
  deps: RunInputChecks,
  owner: string,
  found: NonNullable<Awaited<ReturnType<SkillRepository["getToRun"]>>>,
  given: Record<string, unknown> | null | undefined,
  issues: ValidationIssue[],
): Promise<Record<string, unknown> | null> {
  try {
    return (await checkRunInputs(deps, owner, found, given)).inputs;
  } catch (error) {
    if (!(error instanceof RequestInvalid)) throw error;
    issues.push(...error.issues);
    return null;
  }
}
