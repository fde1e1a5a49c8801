import type { AgentRepository } from "../../src/db/repositories/agents.js";
import type { ApiKeyRepository } from "../../src/db/repositories/api-keys.js";
import type { LiveViewRepository } from "../../src/db/repositories/live-views.js";
import type { ProfileRepository } from "../../src/db/repositories/profiles.js";
import type { RunChangeRepository } from "../../src/db/repositories/run-changes.js";
import type { RunEventRepository } from "../../src/db/repositories/run-events.js";
import type { RunFileRepository } from "../../src/db/repositories/run-files.js";
import type { RunPauseRepository } from "../../src/db/repositories/run-pauses.js";
import type { RunRepository } from "../../src/db/repositories/runs.js";
import type { ScheduleRepository } from "../../src/db/repositories/schedules.js";
import type { SecretRepository } from "../../src/db/repositories/secrets.js";
import type { SkillRepository } from "../../src/db/repositories/skills.js";
import type { UploadedFileRepository } from "../../src/db/repositories/uploaded-files.js";
import type { WebhookRepository } from "../../src/db/repositories/webhooks.js";
import type { FileStore } from "../../src/files/file-store.js";

/** The message of the failure the broken repositories throw; it must never reach a client. */
export const FAILURE_MESSAGE = "SQLITE_IOERR: disk I/O error in /var/lib/skillrun/private.db";

const fail = async (): Promise<never> => {
  throw new Error(FAILURE_MESSAGE);
};

/**
 * The key repository `keys` with the key operations' methods failing; keys still authenticate,
 * so that the failure reaches the route.
 */
export function failingKeyOperations(keys: ApiKeyRepository): ApiKeyRepository {
  return Object.assign(Object.create(keys) as ApiKeyRepository, {
    create: fail,
    listActive: fail,
    countActive: fail,
    revoke: fail,
  });
}

/** An AgentRepository whose every method fails. */
export const failingAgents = {
  touch: fail,
  contact: fail,
  runOf: fail,
  inputsOf: fail,
  eventsSinceClaim: fail,
  list: fail,
} satisfies Record<keyof AgentRepository, unknown> as unknown as AgentRepository;

/** A RunRepository whose every method fails, as with a database gone away. */
export const failingRuns = {
  create: fail,
  createOnce: fail,
  replay: fail,
  queueFull: fail,
  countAllQueued: fail,
  get: fail,
  list: fail,
  summary: fail,
  cancel: fail,
  createRerun: fail,
  checkpoint: fail,
  checkpointLabels: fail,
  rowFor: () => {
    throw new Error(FAILURE_MESSAGE);
  },
  endings: undefined,
} satisfies Record<keyof RunRepository, unknown> as unknown as RunRepository;

/** A RunPauseRepository whose every method fails. */
export const failingRunPauses = {
  requestPause: fail,
  resume: fail,
} satisfies Record<keyof RunPauseRepository, unknown> as unknown as RunPauseRepository;

/** A RunEventRepository whose every method fails. */
export const failingRunEvents = {
  list: fail,
  follow: fail,
} satisfies Record<keyof RunEventRepository, unknown> as unknown as RunEventRepository;

/** A RunChangeRepository whose every method fails. */
export const failingRunChanges = {
  latest: fail,
  after: fail,
} satisfies Record<keyof RunChangeRepository, unknown> as unknown as RunChangeRepository;

/** A WebhookRepository whose every method fails. */
export const failingWebhooks = {
  create: fail,
  list: fail,
  delete: fail,
  deliveries: fail,
  redeliver: fail,
} satisfies Record<keyof WebhookRepository, unknown> as unknown as WebhookRepository;

/** A ProfileRepository whose every method fails. */
export const failingProfiles = {
  list: fail,
  describe: fail,
  put: fail,
  delete: fail,
  open: fail,
  saveFromRun: fail,
  limits: { maxBytes: 0, perOwner: 0 },
} satisfies Record<keyof ProfileRepository, unknown> as unknown as ProfileRepository;

/** A SecretRepository whose every method fails. */
export const failingSecrets = {
  put: fail,
  list: fail,
  delete: fail,
  reveal: fail,
} satisfies Record<keyof SecretRepository, unknown> as unknown as SecretRepository;

/** A SkillRepository whose every method fails. */
export const failingSkills = {
  get: fail,
  getWithDefinition: fail,
  text: fail,
  delete: fail,
  list: fail,
  importAll: fail,
  definitions: fail,
  getToRun: fail,
  timeoutMsOf: fail,
} satisfies Record<keyof SkillRepository, unknown> as unknown as SkillRepository;

const failAtOnce = (): never => {
  throw new Error(FAILURE_MESSAGE);
};

/** A FileStore whose every lookup fails, as with its folder unreadable. */
export const failingVideos = {
  dir: "/var/lib/skillrun/videos",
  // Uploads are received into it before any repository is asked: a folder no one can create
  // (below a file, so mkdir fails at once).
  uploadsDir: "/dev/null/skillrun-uploads",
  // Synchronous, as the store's own lookup is.
  find: failAtOnce,
  pathForWriting: fail,
  keepEarlierAttempt: fail,
  keepEarlierVideo: fail,
  filesDirOf: failAtOnce,
  runFilePathOf: failAtOnce,
  uploadPathOf: failAtOnce,
} satisfies Record<keyof FileStore, unknown> as unknown as FileStore;

/** A RunFileRepository whose every method fails. */
export const failingRunFiles = {
  record: fail,
  list: fail,
  find: fail,
  forget: fail,
  recordVideo: fail,
} satisfies Record<keyof RunFileRepository, unknown> as unknown as RunFileRepository;

/** A LiveViewRepository whose every method fails. */
export const failingLiveViews = {
  runOf: fail,
  watch: fail,
  writeFrame: fail,
  read: fail,
  forgetEnded: fail,
} satisfies Record<keyof LiveViewRepository, unknown> as unknown as LiveViewRepository;

/** An UploadedFileRepository whose every method fails. */
export const failingUploads = {
  create: fail,
  get: fail,
  existing: fail,
  createdBefore: fail,
  delete: fail,
  forget: fail,
  quotaBytes: null,
} satisfies Record<keyof UploadedFileRepository, unknown> as unknown as UploadedFileRepository;

/** A ScheduleRepository whose every method fails. */
export const failingSchedules = {
  maxPerOwner: 100,
  sealInputs: () => {
    throw new Error(FAILURE_MESSAGE);
  },
  openInputs: () => {
    throw new Error(FAILURE_MESSAGE);
  },
  create: fail,
  list: fail,
  get: fail,
  update: fail,
  delete: fail,
  ticks: fail,
  due: fail,
  bufferedReady: fail,
  isOpen: fail,
  writeTick: fail,
} satisfies Record<keyof ScheduleRepository, unknown> as unknown as ScheduleRepository;
