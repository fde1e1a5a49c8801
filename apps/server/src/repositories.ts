import type { Database } from "./db/database.js";
import { ApiKeyRepository } from "./db/repositories/api-keys.js";
import { RunEventRepository } from "./db/repositories/run-events.js";
import { RunExecutionRepository } from "./db/repositories/run-execution.js";
import { RunRepository } from "./db/repositories/runs.js";
import { SkillRepository } from "./db/repositories/skills.js";
import type { Clock } from "./domain/clock.js";
import type { RunSignals } from "./worker/run-signals.js";

export interface Repositories {
  apiKeys: ApiKeyRepository;
  runs: RunRepository;
  runEvents: RunEventRepository;
  /** The worker's side of runs. */
  runExecution: RunExecutionRepository;
  skills: SkillRepository;
}

/**
 * The repositories over one open database, writing `clock`'s time; queued and cancelled runs are
 * announced through `signals`.
 */
export function createRepositories(db: Database, clock: Clock, signals: RunSignals): Repositories {
  return {
    apiKeys: new ApiKeyRepository(db.prisma, clock),
    runs: new RunRepository(db.prisma, clock, signals),
    runEvents: new RunEventRepository(db.prisma),
    runExecution: new RunExecutionRepository(db.prisma, clock, db.flavour),
    skills: new SkillRepository(db.prisma, clock),
  };
}
