// The API load alone, to try a change to a request's path: `npx tsx bench/api-load-only.ts
// sqlite|postgres [seconds]` (PostgreSQL: under `node ../../scripts/with-test-postgres.mjs`, or
// with TEST_DATABASE_URL). Reads the built server (`npm run build`). Prints its figures, each
// with its ratio to the ceiling, and the FastAPI reference's; writes nothing.
import type { Flavour } from "../src/db/database-url.js";
import { measureApiLoad } from "./api-load.js";

const flavour = (process.argv[2] ?? "sqlite") as Flavour;
const seconds = Number(process.argv[3] ?? 10);
const figures = await measureApiLoad(flavour, seconds);
const ceiling = figures.ceiling.rps;
for (const name of ["ceiling", "stackFloor", "pageFloor", "get", "list", "post"] as const) {
  const { rps, p50, p99 } = figures[name];
  console.log(
    `${name.padEnd(10)} ${Math.round(rps).toString().padStart(6)} req/s  ${(rps / ceiling).toFixed(2)}×  p50 ${p50} ms  p99 ${p99} ms`,
  );
}
for (const name of ["get", "post"] as const) {
  const mine = figures[name];
  const { rps, p50, p99 } = figures.fastapi[name];
  console.log(
    `fastapi ${name.padEnd(4)} ${Math.round(rps).toString().padStart(6)} req/s  p50 ${p50} ms  p99 ${p99} ms  (Skillrun: ${(mine.rps / rps).toFixed(2)}× the throughput, ${(mine.p99 / p99).toFixed(2)}× the p99)`,
  );
}
console.log(`RSS ${Math.round(figures.rssMb)} MB`);
