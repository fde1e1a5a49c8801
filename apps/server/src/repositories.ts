import type { Database } from "./db/database.js";
import { AgentRepository } from "./db/repositories/agents.js";
import { ApiKeyRepository } from "./db/repositories/api-keys.js";
import { LiveViewRepository } from "./db/repositories/live-views.js";
import { OwnerStorage } from "./db/repositories/owner-storage.js";
import { type ProfileLimits, ProfileRepository } from "./db/repositories/profiles.js";
import { RetentionRepository } from "./db/repositories/retention.js";
import { RunChangeRepository } from "./db/repositories/run-changes.js";
import { RunEventRepository } from "./db/repositories/run-events.js";
import { RunExecutionRepository } from "./db/repositories/run-execution.js";
import { RunFileRepository } from "./db/repositories/run-files.js";
import { RunPauseRepository } from "./db/repositories/run-pauses.js";
import { RunRepository } from "./db/repositories/runs.js";
import { ScheduleRepository } from "./db/repositories/schedules.js";
import { SecretRepository } from "./db/repositories/secrets.js";
import { SkillRepository } from "./db/repositories/skills.js";
import { UploadedFileRepository } from "./db/repositories/uploaded-files.js";
import { WebhookDeliveryRepository } from "./db/repositories/webhook-deliveries.js";
import { WebhookRepository } from "./db/repositories/webhooks.js";
import { runCommitsFor } from "./db/runs/commit.js";
import type { Clock } from "./domain/clock.js";
import { NO_QUEUE_LIMITS, type QueueLimits } from "./domain/queue-limits.js";
import type { SecretBox } from "./secrets/secret-box.js";
import type { RunSignals } from "./worker/run-signals.js";

/** The configuration's defaults (config.ts), for repositories built without it (tests). */
const DEFAULT_PROFILE_LIMITS: ProfileLimits = { maxBytes: 512 * 1024, perOwner: 100 };

export interface Repositories {
  apiKeys: ApiKeyRepository;
  runs: RunRepository;
  runEvents: RunEventRepository;
  /** The owners' change feeds of runs (the run stream). */
  runChanges: RunChangeRepository;
  /** Pausing and resuming runs, the API's side. */
  runPauses: RunPauseRepository;
  /** The worker's side of runs. */
  runExecution: RunExecutionRepository;
  secrets: SecretRepository;
  /** Browser profiles, the API's side and the worker's. */
  profiles: ProfileRepository;
  skills: SkillRepository;
  /** The index of runs' files. */
  runFiles: RunFileRepository;
  /** Runs' live views: who watches, and the latest frame. */
  liveViews: LiveViewRepository;
  /** Files uploaded for runs' `file` inputs. */
  uploads: UploadedFileRepository;
  /** The bytes each owner keeps, and the quota (OWNER_STORAGE_MAX_BYTES). */
  storage: OwnerStorage;
  /** What retention reads of runs. */
  retention: RetentionRepository;
  /** Webhook endpoints and their deliveries, the API's side. */
  webhooks: WebhookRepository;
  /** The webhook senders' side of deliveries. */
  webhookDeliveries: WebhookDeliveryRepository;
  /** Schedules and their ticks. */
  schedules: ScheduleRepository;
  /** Agents on owners' machines. */
  agents: AgentRepository;
}

/**
 * The repositories over one open database, writing `clock`'s time; queued and cancelled runs are
 * announced through `signals`; secrets and secret inputs are sealed with `secretBox`; the queue
 * keeps to `limits` (OWNER_MAX_RUNNING, OWNER_MAX_QUEUED).
 */
export function createRepositories(
  db: Database,
  clock: Clock,
  signals: RunSignals,
  secretBox: SecretBox,
  limits: QueueLimits = NO_QUEUE_LIMITS,
  /** OWNER_STORAGE_MAX_BYTES; null: none. */
  storageQuotaBytes: number | null = null,
  /** PROFILE_MAX_BYTES and PROFILES_PER_OWNER. */
  profileLimits: ProfileLimits = DEFAULT_PROFILE_LIMITS,
  /** SCHEDULES_PER_OWNER. */
  schedulesPerOwner = 100,
): Repositories {
  const commits = runCommitsFor(db, signals);
  const storage = new OwnerStorage(db.prisma, storageQuotaBytes);
  const { ownerMaxRunning } = limits;
  return {
    apiKeys: new ApiKeyRepository(db.prisma, db.direct, clock),
    runs: new RunRepository(db.prisma, db.direct, clock, commits, secretBox, limits),
    runEvents: new RunEventRepository(db.prisma),
    runChanges: new RunChangeRepository(db.prisma, db.direct, ownerMaxRunning),
    runPauses: new RunPauseRepository(db.prisma, db.direct, clock, commits),
    runExecution: new RunExecutionRepository(db.direct, clock, db.flavour, ownerMaxRunning),
    secrets: new SecretRepository(db.prisma, clock, secretBox),
    profiles: new ProfileRepository(db.direct, db.flavour, clock, secretBox, profileLimits),
    skills: new SkillRepository(db.prisma, db.direct, clock),
    runFiles: new RunFileRepository(db.prisma, storage),
    liveViews: new LiveViewRepository(db.direct),
    uploads: new UploadedFileRepository(db.prisma, clock, storage),
    storage,
    retention: new RetentionRepository(db.prisma, db.direct),
    webhooks: new WebhookRepository(db.prisma, db.direct, clock, secretBox),
    webhookDeliveries: new WebhookDeliveryRepository(db.prisma, db.direct, clock),
    agents: new AgentRepository(db.direct, clock),
    schedules: new ScheduleRepository(
      db.prisma,
      db.direct,
      clock,
      commits,
      secretBox,
      schedulesPerOwner,
    ),
  };
}
