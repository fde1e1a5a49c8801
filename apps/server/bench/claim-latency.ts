// How soon an idle worker on PostgreSQL claims a run after it is queued: the target is
// 100 ms, met by LISTEN/NOTIFY rather than polling (the worker here polls every 10 s).
// Needs PostgreSQL at TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres).
import { parseSkillDefinition } from "@skillrun/engine";
import { pino } from "pino";
import { openDatabase } from "../src/db/database.js";
import { systemClock } from "../src/domain/clock.js";
import { createRepositories } from "../src/repositories.js";
import { skillRecordOf } from "../src/skills/import-skills.js";
import { createTestDatabase } from "../src/test-support/test-database.js";
import { testSecretBox } from "../src/test-support/test-secrets.js";
import { PostgresRunSignals } from "../src/worker/postgres-run-signals.js";
import { startWorkerProcess } from "../test/support/skillrun-process.js";

const SAMPLES = 50;
const TARGET_P95_MS = 100;

const SKILL = `
id: skill_noop
name: No-op
steps:
  - log: claimed
`;

const database = await createTestDatabase("postgres");
const db = await openDatabase(database.url);
const signals = await PostgresRunSignals.connect(db, pino({ level: "silent" }), { streams: false });
const worker = await startWorkerProcess(database.url, { WORKER_POLL_MS: "10000" });
try {
  const repos = createRepositories(db, systemClock, signals, testSecretBox());
  await repos.skills.importAll("bench", [skillRecordOf(parseSkillDefinition(SKILL, "noop.yaml"))]);
  const latencies: number[] = [];
  for (let i = 0; i < SAMPLES; i += 1) {
    // What POST /v1/run/ does: store the run, announced to every process at commit.
    const run = await repos.runs.create({
      owner: "bench",
      skill: { id: "skill_noop", name: "No-op" },
      inputs: {},
    });
    for (;;) {
      const claim = await db.prisma.runEvent.findFirst({
        where: { runId: run.id, type: "run_claimed" },
      });
      if (claim) {
        latencies.push(claim.at.getTime() - Date.parse(run.created_at));
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  const p95 = at(0.95) as number;
  console.log(
    `claim latency over ${SAMPLES} runs: p50 ${at(0.5)} ms, p95 ${p95} ms, max ${latencies.at(-1)} ms (target p95 ≤ ${TARGET_P95_MS} ms)`,
  );
  if (p95 > TARGET_P95_MS) process.exitCode = 1;
} finally {
  await worker.stop();
  await signals.close();
  await db.close();
  await database.drop();
}
