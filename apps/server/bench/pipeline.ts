// The run pipeline: a burst of trivial runs from the first POST to the last ending, and how soon
// an idle worker takes a run (dispatch).
import type { Flavour } from "../src/db/database-url.js";
import { type BenchDatabase, benchDatabase } from "./support/bench-database.js";
import type { BenchProcess } from "./support/processes.js";
import { api, startServe, startWorker } from "./support/skillrun.js";
import { ONE_SET_SKILL } from "./support/skills.js";
import { quantile, sleep } from "./support/stats.js";

const WARM_UP_RUNS = 200;

export interface PipelineFigures {
  runs: number;
  /** Runs per second from the first POST to the last ending. */
  runsPerSecond: number;
  /** created_at → end_time of each run, ms. */
  p50: number;
  p99: number;
  /** Runs that did not end in `finish` (should be 0). */
  notFinished: number;
}

export interface DispatchFigures {
  samples: number;
  /** A run's created_at → its run_claimed event, ms. */
  p50: number;
  p99: number;
}

/**
 * SQLite: one `skillrun serve` that executes runs itself. PostgreSQL: a server that executes none
 * and two `skillrun worker`s. Default settings otherwise.
 */
async function startPipeline(
  database: BenchDatabase,
): Promise<{ base: string; stop(): Promise<void> }> {
  const processes: BenchProcess[] = [];
  try {
    if (database.flavour === "sqlite") {
      processes.push(await startServe(database.env));
    } else {
      processes.push(await startServe({ ...database.env, WORKER_CONCURRENCY: "0" }));
      processes.push(await startWorker(database.env), await startWorker(database.env));
    }
  } catch (error) {
    await Promise.all(processes.map((p) => p.stop()));
    throw error;
  }
  return {
    base: (processes[0] as BenchProcess).announced,
    stop: async () => {
      await Promise.all(processes.map((p) => p.stop()));
    },
  };
}

export async function measurePipeline(flavour: Flavour, runs: number): Promise<PipelineFigures> {
  const database = await benchDatabase(flavour, [ONE_SET_SKILL]);
  const pipeline = await startPipeline(database);
  try {
    const start = () =>
      api<{ id: string }>(pipeline.base, database.key, "/run/", {
        method: "POST",
        body: { skill_id: "skill_one_set", inputs: { n: 1 } },
      });
    // Warm-up, not measured: the run processes start and every process's JIT compiles the run's
    // path (with 8 runs instead, the workers still spent a fifth of the burst compiling).
    const warm = await Promise.all(Array.from({ length: WARM_UP_RUNS }, start));
    await untilEnded(database, warm.length);
    const firstPost = Date.now();
    // The burst: 32 clients posting at once, as fast as they are answered.
    let posted = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (posted < runs) {
          posted += 1;
          await start();
        }
      }),
    );
    await untilEnded(database, warm.length + runs);
    const rows = await database.db.prisma.run.findMany({
      where: { id: { notIn: warm.map((run) => run.id) } },
      select: { createdAt: true, endTime: true, state: true },
    });
    const lastEnd = Math.max(...rows.map((row) => row.endTime?.getTime() ?? 0));
    const latencies = rows.map((row) => (row.endTime?.getTime() ?? 0) - row.createdAt.getTime());
    return {
      runs,
      runsPerSecond: runs / ((lastEnd - firstPost) / 1000),
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
      notFinished: rows.filter((row) => row.state !== "finish").length,
    };
  } finally {
    await pipeline.stop();
    await database.drop();
  }
}

export async function measureDispatch(flavour: Flavour, samples: number): Promise<DispatchFigures> {
  const database = await benchDatabase(flavour, [ONE_SET_SKILL]);
  const pipeline = await startPipeline(database);
  try {
    const latencies: number[] = [];
    for (let i = 0; i < samples + 5; i += 1) {
      const run = await api<{ id: string; created_at: string }>(
        pipeline.base,
        database.key,
        "/run/",
        {
          method: "POST",
          body: { skill_id: "skill_one_set", inputs: { n: 1 } },
        },
      );
      const ended = await untilRunEnded(database, run.id);
      // The first few warm the workers up.
      if (i >= 5) latencies.push(ended.claimedAt - Date.parse(run.created_at));
    }
    return { samples, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) };
  } finally {
    await pipeline.stop();
    await database.drop();
  }
}

async function untilEnded(database: BenchDatabase, count: number): Promise<void> {
  const deadline = Date.now() + 300_000;
  while ((await database.db.prisma.run.count({ where: { endTime: { not: null } } })) < count) {
    if (Date.now() > deadline) throw new Error(`fewer than ${count} runs ended within 5 minutes`);
    await sleep(20);
  }
}

/** Waits for the run to end (so that the workers are idle again); when it was claimed. */
async function untilRunEnded(
  database: BenchDatabase,
  runId: string,
): Promise<{ claimedAt: number }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const run = await database.db.prisma.run.findUnique({
      where: { id: runId },
      select: { endTime: true },
    });
    if (run?.endTime) break;
    if (Date.now() > deadline) throw new Error(`run ${runId} did not end within 30 s`);
    await sleep(2);
  }
  const claim = await database.db.prisma.runEvent.findFirst({
    where: { runId, type: "run_claimed" },
  });
  if (claim === null) throw new Error(`run ${runId} ended without a run_claimed event`);
  return { claimedAt: claim.at.getTime() };
}
