import { loadConfig } from "../config.js";
import type { Repositories } from "../repositories.js";
import { PAUSE, resumeChange } from "../schedules/pause-resume.js";
import { scheduledRunOf } from "../schedules/scheduled-run.js";
import { toSchedule } from "../schedules/stored-schedule.js";
import { withRepositories } from "./with-database.js";

// How often a pause or resume is tried again when a tick moved the schedule on meanwhile.
const ATTEMPTS = 5;

/** `skillrun schedules list --owner O`: each schedule, its cron and zone, and when it fires next. */
export async function schedulesList(owner: string): Promise<number> {
  const schedules = await withRepositories((repos) => repos.schedules.list(owner));
  if (schedules.length === 0) {
    console.log(`No schedules for owner "${owner}". Create one with POST /v1/schedule.`);
    return 0;
  }
  const now = new Date();
  for (const stored of schedules) {
    const s = toSchedule(stored, now);
    const state = s.paused ? `paused (${s.paused_reason})` : `next ${s.next_runs[0] ?? "never"}`;
    console.log(
      `${s.id}  ${s.skill_id}  "${s.cron}" ${s.timezone}  overlap ${s.overlap}  ${state}`,
    );
  }
  return 0;
}

/** `skillrun schedules pause|resume ID --owner O`, as PATCH with `paused` does it. */
export async function schedulesPause(id: string, owner: string, paused: boolean): Promise<number> {
  const done = await withRepositories(async (repos) => {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const current = await repos.schedules.get(owner, id);
      if (current === null) return "missing";
      if (current.paused === paused) return "already";
      const change = paused ? PAUSE : resumeChange(current, new Date());
      if (await repos.schedules.update(owner, id, current.version, change)) return "done";
    }
    throw new Error(`schedule ${id} kept changing; try again`);
  });
  if (done === "missing") return missing(id, owner);
  const verb = paused ? "paused" : "resumed";
  console.log(
    done === "already" ? `Schedule ${id} is ${verb} already.` : `Schedule ${id} ${verb}.`,
  );
  return 0;
}

/** `skillrun schedules trigger ID --owner O`: a run of the schedule now, as the API's trigger. */
export async function schedulesTrigger(id: string, owner: string): Promise<number> {
  const config = loadConfig();
  const outcome = await withRepositories(async (repos: Repositories) => {
    const schedule = await repos.schedules.get(owner, id);
    if (schedule === null) return null;
    const inputLimits = { maxBytes: config.INPUTS_MAX_BYTES, maxDepth: config.INPUTS_MAX_DEPTH };
    const made = await scheduledRunOf({ ...repos, inputLimits }, schedule);
    if ("reason" in made) return made;
    const now = new Date();
    const written = await repos.schedules.writeTick({
      scheduleId: id,
      version: null,
      set: {},
      run: { row: made.row, scheduledAt: now },
      ticks: [{ tickAt: now, outcome: "fired", reason: null, message: null, manual: true }],
      now,
    });
    return written ? { runId: made.row.id } : null;
  });
  if (outcome === null) return missing(id, owner);
  if ("reason" in outcome) {
    console.error(`skillrun: schedule ${id} started no run: ${outcome.message}`);
    return 1;
  }
  console.log(`Queued run ${outcome.runId} of schedule ${id}.`);
  return 0;
}

/** `skillrun schedules ticks ID --owner O`: the newest 20 ticks and what came of each. */
export async function schedulesTicks(id: string, owner: string): Promise<number> {
  const ticks = await withRepositories((repos) => repos.schedules.ticks(owner, id, 20));
  if (ticks === null) return missing(id, owner);
  if (ticks.length === 0) console.log(`Schedule ${id} has no ticks yet.`);
  for (const t of ticks) {
    const what = t.run_id !== null ? `run ${t.run_id}` : t.outcome === "buffered" ? "" : t.reason;
    const note = t.message === null ? "" : ` (${t.message})`;
    console.log(`${t.scheduled_for}  ${t.outcome}${t.manual ? " manual" : ""}  ${what}${note}`);
  }
  return 0;
}

/** `skillrun schedules delete ID --owner O`: the schedule and its ticks; its runs stay. */
export async function schedulesDelete(id: string, owner: string): Promise<number> {
  const deleted = await withRepositories((repos) => repos.schedules.delete(owner, id));
  if (!deleted) return missing(id, owner);
  console.log(`Deleted schedule ${id} of owner "${owner}" (its runs are kept).`);
  return 0;
}

function missing(id: string, owner: string): number {
  console.error(
    `skillrun: owner "${owner}" has no schedule ${id} (see skillrun schedules list --owner ${owner})`,
  );
  return 1;
}
