import type { Database } from "./db/database.js";
import { ApiKeyRepository } from "./db/repositories/api-keys.js";
import { RunRepository } from "./db/repositories/runs.js";
import { SkillRepository } from "./db/repositories/skills.js";
import { type Clock, systemClock } from "./domain/clock.js";

export interface Repositories {
  apiKeys: ApiKeyRepository;
  runs: RunRepository;
  skills: SkillRepository;
}

/** The repositories over one open database. */
export function createRepositories(db: Database, clock: Clock = systemClock): Repositories {
  return {
    apiKeys: new ApiKeyRepository(db.prisma, clock),
    runs: new RunRepository(db.prisma, clock),
    skills: new SkillRepository(db.prisma, clock),
  };
}
