import type { RunRepository } from "../db/repositories/runs.js";
import type { ScheduleRepository } from "../db/repositories/schedules.js";
import type { SkillRepository } from "../db/repositories/skills.js";
import type { NewRunRow } from "../db/runs/create.js";
import { RequestInvalid } from "../domain/errors.js";
import { checkRunInputs, type RunInputChecks } from "../domain/run-inputs.js";
import type { StoredSchedule } from "./stored-schedule.js";

/** What a schedule's run is made with. */
export interface ScheduledRunDeps extends RunInputChecks {
  skills: SkillRepository;
  runs: RunRepository;
  schedules: ScheduleRepository;
}

/** Why a schedule could not start a run now: a tick's `reason`, and what to tell. */
export interface NoRun {
  reason: "skill_not_found" | "inputs_invalid" | "queue_full";
  message: string;
}

/**
 * The run a schedule starts now, as POST /run/ would queue it: its skill as stored now, its inputs
 * (secret ones opened, to be sealed for the run) checked again against it, since the skill or an
 * upload it names may have changed since the schedule was written; or why there is none.
 */
export async function scheduledRunOf(
  deps: ScheduledRunDeps,
  schedule: StoredSchedule,
): Promise<{ row: NewRunRow } | NoRun> {
  const found = await deps.skills.getToRun(schedule.owner, schedule.skillId);
  if (found === null) {
    return { reason: "skill_not_found", message: `the skill ${schedule.skillId} was deleted` };
  }
  const values = deps.schedules.openInputs(schedule);
  let checked: Awaited<ReturnType<typeof checkRunInputs>>;
  try {
    checked = await checkRunInputs(deps, schedule.owner, found, values);
  } catch (error) {
    if (!(error instanceof RequestInvalid)) throw error;
    const problems = error.issues.map((issue) => `${issue.loc.slice(1).join(".")}: ${issue.msg}`);
    return {
      reason: "inputs_invalid",
      message: `the schedule's inputs no longer fit skill ${schedule.skillId}: ${problems.join("; ")}`,
    };
  }
  if (await deps.runs.queueFull(schedule.owner)) {
    return {
      reason: "queue_full",
      message: "the owner had OWNER_MAX_QUEUED runs waiting to start",
    };
  }
  return { row: deps.runs.rowFor({ owner: schedule.owner, skill: found.skill, ...checked }) };
}
