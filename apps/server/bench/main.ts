// `npm run bench`: the API against its ceiling, the run pipeline, dispatch, the run list with a
// million runs, the server's memory and a browser run's finish lag, on SQLite and on PostgreSQL
// (TEST_DATABASE_URL's server; `npm run bench` starts a throwaway one when it is unset). Prints
// the table and writes it into BENCHMARKS.md. `--quick` measures shorter and smaller, to try
// a change; its figures are not written.
import { fileURLToPath } from "node:url";
import pg from "pg";
import type { Flavour } from "../src/db/database-url.js";
import { DEFAULT_TEST_DATABASE_URL } from "../src/test-support/test-database.js";
import { measureApiLoad } from "./api-load.js";
import { measureFinishLag } from "./finish-lag.js";
import { measureListAtScale } from "./list-at-scale.js";
import { measureDispatch, measurePipeline } from "./pipeline.js";
import {
  type BenchFigures,
  type FlavourFigures,
  printTable,
  report,
  writeReport,
} from "./report.js";

const quick = process.argv.includes("--quick");
const SECONDS = quick ? 3 : 10;
const PIPELINE_RUNS = quick ? 200 : 1_000;
const DISPATCH_SAMPLES = quick ? 20 : 100;
const LIST_RUNS = quick ? 100_000 : 1_000_000;
const BENCHMARKS_MD = fileURLToPath(new URL("../../../BENCHMARKS.md", import.meta.url));

async function measure(flavour: Flavour): Promise<FlavourFigures> {
  console.log(`${flavour}: the API under load…`);
  const api = await measureApiLoad(flavour, SECONDS);
  console.log(`${flavour}: the pipeline…`);
  const pipeline = await measurePipeline(flavour, PIPELINE_RUNS);
  console.log(`${flavour}: dispatch…`);
  const dispatch = await measureDispatch(flavour, DISPATCH_SAMPLES);
  console.log(`${flavour}: the run list with ${LIST_RUNS.toLocaleString("en")} runs…`);
  const list = await measureListAtScale(flavour, LIST_RUNS, quick ? 2 : 5);
  return { api, pipeline, dispatch, list };
}

/** Which PostgreSQL the figures are of: TEST_DATABASE_URL's server, or the throwaway one. */
async function postgresServer(): Promise<string> {
  const client = new pg.Client({
    connectionString: process.env.TEST_DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL,
  });
  await client.connect();
  try {
    const version = (await client.query("SHOW server_version")).rows[0]?.server_version;
    const fsync = (await client.query("SHOW fsync")).rows[0]?.fsync;
    const commit = (await client.query("SHOW synchronous_commit")).rows[0]?.synchronous_commit;
    return `${version} on the same machine, fsync ${fsync}, synchronous_commit ${commit}`;
  } finally {
    await client.end();
  }
}

const server = await postgresServer();
const sqlite = await measure("sqlite");
const postgres = await measure("postgres");
console.log("a browser run's finish lag…");
const finishLag = await measureFinishLag();
const figures: BenchFigures = {
  postgresServer: server,
  sqlite,
  postgres,
  finishLag,
  seconds: SECONDS,
};
printTable(figures);
if (quick) {
  console.log("(--quick: BENCHMARKS.md is left as it is)");
} else {
  writeReport(BENCHMARKS_MD, report(figures));
  console.log(`written to ${BENCHMARKS_MD}`);
}
