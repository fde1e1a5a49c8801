import type { StoredRunState } from "../../domain/run-state-machine.js";

/** A Prisma `where` fragment matching runs in any of `states`, the queue (null) included. */
export function stateIn(states: readonly StoredRunState[]) {
  const named = states.filter((state) => state !== null);
  if (!states.includes(null)) return { state: { in: named } };
  if (named.length === 0) return { state: null };
  return { OR: [{ state: null }, { state: { in: named } }] };
}
