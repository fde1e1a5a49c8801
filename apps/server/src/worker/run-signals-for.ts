import type { Logger } from "pino";
import type { Database } from "../db/database.js";
import { InProcessRunSignals } from "./in-process-run-signals.js";
import { PostgresRunSignals } from "./postgres-run-signals.js";
import type { RunSignals } from "./run-signals.js";

/**
 * The run signals of a process on `db`: across processes with PostgreSQL's LISTEN/NOTIFY, within
 * the process with SQLite (where processes on the same file find new runs by polling). `streams`:
 * the process serves live streams, and hears what wakes them.
 */
export async function runSignalsFor(
  db: Database,
  logger: Logger,
  options: { streams: boolean },
): Promise<RunSignals> {
  return db.flavour === "postgres"
    ? PostgresRunSignals.connect(db, logger, options)
    : new InProcessRunSignals();
}
