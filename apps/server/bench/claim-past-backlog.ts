// What a claim costs when one owner's queue is a backlog its skill's concurrency holds back: the
// claim passes every one of those runs to reach another owner's (decision 0043). Prints the
// median of a few claims for each backlog size.
// `npx tsx apps/server/bench/claim-past-backlog.ts sqlite|postgres [runs …]` (PostgreSQL at
// TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres).
import type { Flavour } from "../src/db/database-url.js";
import { placeholders } from "../src/db/direct-sql.js";
import { systemClock } from "../src/domain/clock.js";
import { openTestRepositories } from "../src/test-support/test-repositories.js";

const CLAIMS = 7;
const BATCH = 500;
const flavour = (process.argv[2] ?? "sqlite") as Flavour;
const sizes = process.argv.slice(3).map(Number);
process.env.TEST_FLAVOUR = flavour;

function skill(id: string, definition: Record<string, unknown>) {
  return { id, name: id, description: null, inputs: [], definition, definitionHash: id };
}

/** The median time of CLAIMS claims with `backlog` of alice's runs held back, in ms. */
async function medianClaimMs(backlog: number): Promise<number> {
  const { repos, db, close } = await openTestRepositories(systemClock);
  try {
    await repos.skills.importAll("alice", [skill("skill_one", { concurrency: 1 })]);
    await repos.skills.importAll("bob", [skill("skill_a", {})]);
    const held = { owner: "alice", skill: { id: "skill_one", name: "one" }, inputs: {} };
    const bobs = { owner: "bob", skill: { id: "skill_a", name: "A" }, inputs: {} };
    // Alice's one run that holds her skill, then one of bob's: alice was served longest ago.
    await repos.runs.create({ ...held, concurrency: { limit: 1, key: null } });
    await repos.runExecution.claim("bench", 60_000);
    await repos.runs.create(bobs);
    await repos.runExecution.claim("bench", 60_000);
    // The backlog, written in bulk as create would queue it (alice is in run_owners already).
    const start = Date.now();
    for (let done = 0; done < backlog; done += BATCH) {
      const count = Math.min(BATCH, backlog - done);
      const row = `(${placeholders(3)}, 'alice', 'skill_one', 'one', NULL, 'cloud', '{}', 1)`;
      const rows = Array.from({ length: count }, () => row).join(", ");
      const params = Array.from({ length: count }, (_, i) => {
        const at = new Date(start + done + i);
        return [`run_backlog_${done + i}`, at, at];
      }).flat();
      await db.direct.single(
        `INSERT INTO runs (id, created_at, start_time, owner, skill_id, name, state, environment,
            inputs, concurrency_limit) VALUES ${rows}`,
        params,
      );
    }
    if (flavour === "postgres") await db.direct.single("ANALYZE runs", []);
    const times: number[] = [];
    for (let i = 0; i < CLAIMS; i += 1) {
      // Bob's run is the one to take, after alice's backlog, walked first.
      await repos.runs.create(bobs);
      const began = performance.now();
      const claimed = await repos.runExecution.claim("bench", 60_000);
      times.push(performance.now() - began);
      if (claimed?.owner !== "bob") throw new Error(`claimed ${claimed?.owner ?? "nothing"}`);
    }
    return times.sort((a, b) => a - b)[Math.floor(CLAIMS / 2)] as number;
  } finally {
    await close();
  }
}

for (const backlog of sizes.length > 0 ? sizes : [0, 10_000, 100_000]) {
  const ms = await medianClaimMs(backlog);
  console.log(`${flavour}: ${backlog} held-back runs, claim p50 ${ms.toFixed(1)} ms`);
}
