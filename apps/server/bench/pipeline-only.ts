// The pipeline alone, to try a change to a run's path: `npx tsx bench/pipeline-only.ts
// sqlite|postgres [runs]` (PostgreSQL: under `node ../../scripts/with-test-postgres.mjs`, or with
// TEST_DATABASE_URL). Prints its figures; writes nothing.
import type { Flavour } from "../src/db/database-url.js";
import { measurePipeline } from "./pipeline.js";

const flavour = (process.argv[2] ?? "sqlite") as Flavour;
const runs = Number(process.argv[3] ?? 1000);
console.log(flavour, await measurePipeline(flavour, runs));
