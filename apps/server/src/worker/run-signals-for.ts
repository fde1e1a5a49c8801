import type { Logger } from "pino";
import type { Database } from "../db/database.js";
import { InProcessRunSignals } from "./in-process-run-signals.js";
import { PostgresRunSignals } from "./postgres-run-signals.js";
import type { RunSignals } from "./run-signals.js";

/**
 * The run signals of a process on `db`: across processes with PostgreSQL's LISTEN/NOTIFY, within
 * the process with SQLite (where processes on the same file find new runs by polling).
 */
export async function runSignalsFor(db: Database, logger: Logger): Promise<RunSignals> {
  return db.flavour === "postgres"
    ? PostgresRunSignals.connect(db, logger)
    : new InProcessRunSignals(db.prisma, db.direct);
}
