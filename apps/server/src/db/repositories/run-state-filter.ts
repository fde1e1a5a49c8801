import type { StoredRunState } from "../../domain/run-state-machine.js";
import { placeholders, type SqlValue } from "../direct-sql.js";

/** A Prisma `where` fragment matching runs in any of `states`, the queue (null) included. */
export function stateIn(states: readonly StoredRunState[]) {
  const named = states.filter((state) => state !== null);
  if (!states.includes(null)) return { state: { in: named } };
  if (named.length === 0) return { state: null };
  return { OR: [{ state: null }, { state: { in: named } }] };
}

/** The same as SQL for the direct statements: its text and its parameters. */
export function stateInSql(states: readonly StoredRunState[]): { sql: string; params: SqlValue[] } {
  const named = states.filter((state): state is NonNullable<StoredRunState> => state !== null);
  const inList = named.length === 0 ? "" : `state IN (${placeholders(named.length)})`;
  if (!states.includes(null)) return { sql: inList === "" ? "0 = 1" : inList, params: named };
  return { sql: inList === "" ? "state IS NULL" : `(state IS NULL OR ${inList})`, params: named };
}
