import type { RunEvent } from "@skillrun/client";
import type { Schema } from "../../components/schema-form/schema.js";

/** Why a paused run waits: an `ask` with its question, or a pause someone requested. */
export interface Pause {
  /** The `run_paused` event's id: a later pause is a new question. */
  eventId: number;
  reason: string;
  prompt: string;
  schema: Schema | undefined;
}

/** The pause the run is in, from its log: the last `run_paused` not followed by a resume. */
export function lastPause(events: RunEvent[]): Pause | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (event?.type === "run_resumed") return null;
    if (event?.type === "run_paused") {
      const data = (event.data ?? {}) as { reason?: string; prompt?: string; schema?: Schema };
      return {
        eventId: event.id,
        reason: data.reason ?? "requested",
        prompt: data.prompt ?? "",
        schema: data.schema,
      };
    }
  }
  return null;
}
