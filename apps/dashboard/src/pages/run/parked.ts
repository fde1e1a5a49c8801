import type { RunEvent } from "@skillrun/client";

/**
 * A run that is parked (docs/decisions/0052-parking.md): it waits holding no worker, browser or
 * slot, until an answer, a resume or the end of its wait lets a worker take it again.
 */
export interface Parked {
  /** The `run_parked` event's id. */
  eventId: number;
  /** What it was parked in: a pause at an `ask`, a pause a client requested, or a `wait`. */
  waiting: "ask" | "requested" | "wait";
  /** `data.wake_at`: when a parked wait goes on, or when a parked pause expires; null if absent. */
  wakeAt: string | null;
}

/**
 * Whether the run is parked, from its log: its last `run_parked` comes after its last
 * `run_claimed` (a worker taking it again writes one). What it waits in is told by the events
 * since that claim: a `run_paused` not yet followed by a `run_resumed` before the park is a pause
 * (its `data.reason`, `requested` when it gives none, as for the pause itself); otherwise it was
 * a `wait`. Says nothing of an ended run: read it with the run's state.
 */
export function parkedOf(events: RunEvent[]): Parked | null {
  let parked: RunEvent | undefined;
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (event === undefined) continue;
    if (parked === undefined) {
      // Taken by a worker since it was last parked (or never parked): it is not parked now.
      if (event.type === "run_claimed") return null;
      if (event.type === "run_parked") parked = event;
      continue;
    }
    // Back from the park to the claim it ended: was the run paused when it was parked?
    if (event.type === "run_claimed" || event.type === "run_resumed") break;
    if (event.type === "run_paused") {
      const reason = (event.data as { reason?: unknown } | null)?.reason;
      return { ...of(parked), waiting: reason === "ask" ? "ask" : "requested" };
    }
  }
  return parked ? { ...of(parked), waiting: "wait" } : null;
}

function of(event: RunEvent): Omit<Parked, "waiting"> {
  const wakeAt = (event.data as { wake_at?: unknown } | null)?.wake_at;
  return { eventId: event.id, wakeAt: typeof wakeAt === "string" ? wakeAt : null };
}
