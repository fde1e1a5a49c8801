// GET /run/list?limit=20 with a million runs stored: each filter's p50/p99, one request at a time
// (the time of the query, not of a queue of requests).
import type { Flavour } from "../src/db/database-url.js";
import { BENCH_OWNER, type BenchDatabase, benchDatabase } from "./support/bench-database.js";
import { type LoadResult, load } from "./support/load.js";
import { startServe } from "./support/skillrun.js";

export const LIST_FILTERS = {
  unfiltered: "",
  "state_filter=finish": "&state_filter=finish",
  "state_filter=queued": "&state_filter=queued",
  "state_filter=finish,failed": "&state_filter=finish&state_filter=reset",
  "skill_id=skill_3": "&skill_id=skill_3",
  "skill_id + state_filter=queued": "&skill_id=skill_3&state_filter=queued",
} as const;

export type ListFilter = keyof typeof LIST_FILTERS;

export interface ListAtScaleFigures {
  runs: number;
  /** How long storing them took, s. */
  seedSeconds: number;
  byFilter: Record<ListFilter, LoadResult>;
}

const SKILLS = Array.from(
  { length: 10 },
  (_, i) => `
id: skill_${i}
name: Skill ${i}
steps:
  - log: "${i}"
`,
);

export async function measureListAtScale(
  flavour: Flavour,
  runs: number,
  seconds: number,
): Promise<ListAtScaleFigures> {
  const database = await benchDatabase(flavour, SKILLS);
  try {
    const seedStart = Date.now();
    await seed(database, runs);
    const seedSeconds = (Date.now() - seedStart) / 1000;
    const server = await startServe({ ...database.env, WORKER_CONCURRENCY: "0" });
    try {
      const headers = { authorization: `Bearer ${database.key}` };
      const url = (query: string) => `${server.announced}/v1/run/list?limit=20${query}`;
      // Every filter once first: the pages the database caches warm up, not only one filter's.
      for (const query of Object.values(LIST_FILTERS)) {
        await load(url(query), { headers, connections: 1, seconds: 1, warmupSeconds: 0 });
      }
      const byFilter = {} as Record<ListFilter, LoadResult>;
      for (const [name, query] of Object.entries(LIST_FILTERS) as [ListFilter, string][]) {
        byFilter[name] = await load(url(query), {
          headers,
          connections: 1,
          seconds,
          warmupSeconds: 1,
        });
      }
      return { runs, seedSeconds, byFilter };
    } finally {
      await server.stop();
    }
  } finally {
    await database.drop();
  }
}

/**
 * Stores `count` ended runs of the bench owner in one statement, spread over 7 skills and the
 * states as a busy service has them (most finished; a few queued, running or failed), one a
 * second back from now. The runs' own columns only: no events.
 */
async function seed(database: BenchDatabase, count: number): Promise<void> {
  const now = Date.now();
  // State by n % 100: 1 queued, 2 play, 80 finish, 10 reset, 4 cancel, 3 timeout.
  const state = `CASE WHEN n % 100 = 0 THEN NULL WHEN n % 100 < 3 THEN 'play' WHEN n % 100 < 83 THEN 'finish'
    WHEN n % 100 < 93 THEN 'reset' WHEN n % 100 < 97 THEN 'cancel' ELSE 'timeout' END`;
  if (database.flavour === "sqlite") {
    const at = (offset: string) =>
      `strftime('%Y-%m-%dT%H:%M:%f', (${now} - n * 1000 ${offset}) / 1000.0, 'unixepoch') || '+00:00'`;
    await database.db.prisma.$executeRawUnsafe(`
      WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < ${count})
      INSERT INTO runs (id, owner, skill_id, name, state, environment, inputs, data, created_at, start_time, end_time, attempts)
      SELECT printf('run_seed_%08d', n), '${BENCH_OWNER}', 'skill_' || (n % 7), 'Skill ' || (n % 7), ${state},
        'cloud', '{}', NULL, ${at("")}, ${at("")}, ${at("- 500")}, 1
      FROM c`);
  } else {
    const at = (offset: string) =>
      `(to_timestamp((${now} - n * 1000 ${offset}) / 1000.0) AT TIME ZONE 'UTC')`;
    await database.db.prisma.$executeRawUnsafe(`
      INSERT INTO runs (id, owner, skill_id, name, state, environment, inputs, data, created_at, start_time, end_time, attempts)
      SELECT 'run_seed_' || lpad(n::text, 8, '0'), '${BENCH_OWNER}', 'skill_' || (n % 7), 'Skill ' || (n % 7), ${state},
        'cloud', '{}', NULL, ${at("")}, ${at("")}, ${at("- 500")}, 1
      FROM generate_series(1, ${count}) AS n`);
    await database.db.prisma.$executeRawUnsafe("ANALYZE runs");
  }
}
