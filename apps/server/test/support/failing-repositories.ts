import type { RunEventRepository } from "../../src/db/repositories/run-events.js";
import type { RunRepository } from "../../src/db/repositories/runs.js";
import type { SkillRepository } from "../../src/db/repositories/skills.js";
import type { VideoStore } from "../../src/videos/video-store.js";

/** The message of the failure the broken repositories throw; it must never reach a client. */
export const FAILURE_MESSAGE = "SQLITE_IOERR: disk I/O error in /var/lib/skillrun/private.db";

const fail = async (): Promise<never> => {
  throw new Error(FAILURE_MESSAGE);
};

/** A RunRepository whose every method fails, as with a database gone away. */
export const failingRuns = {
  create: fail,
  get: fail,
  list: fail,
  cancel: fail,
} satisfies Record<keyof RunRepository, unknown> as unknown as RunRepository;

/** A RunEventRepository whose every method fails. */
export const failingRunEvents = {
  list: fail,
} satisfies Record<keyof RunEventRepository, unknown> as unknown as RunEventRepository;

/** A SkillRepository whose every method fails. */
export const failingSkills = {
  get: fail,
  list: fail,
  importAll: fail,
} satisfies Record<keyof SkillRepository, unknown> as unknown as SkillRepository;

/** A VideoStore whose every lookup fails, as with its folder unreadable. */
export const failingVideos = {
  dir: "/var/lib/skillrun/videos",
  find: fail,
  pathForWriting: fail,
  screenshotDirOf: () => {
    throw new Error(FAILURE_MESSAGE);
  },
} satisfies Record<keyof VideoStore, unknown> as unknown as VideoStore;
