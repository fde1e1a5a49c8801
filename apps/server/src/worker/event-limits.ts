import { formatBytes } from "@skillrun/engine";
import type { NewRunEvent } from "../db/repositories/run-events.js";

/** How much of a run's step log is kept. */
export interface EventLimits {
  /** Events one execution of a run may write; past it one note says so and the rest are dropped. */
  maxEvents: number;
  /** UTF-8 bytes of an event's message; longer ones are cut with an ellipsis and a note. */
  messageBytes: number;
  /** UTF-8 bytes of one value of an event's data (e.g. a key a step wrote) kept in the log. */
  dataValueBytes: number;
}

/**
 * UTF-8 bytes of a step's detail kept in the log: the engine keeps a detail to 200 characters
 * (docs/decisions/0059-step-detail.md); this bounds what a run process may send all the same.
 */
export const DETAIL_BYTES = 1024;

export const DEFAULT_EVENT_LIMITS: EventLimits = {
  maxEvents: 10_000,
  messageBytes: 8 * 1024,
  dataValueBytes: 64 * 1024,
};

/**
 * Admits a run's events into its step log within the limits: each event's message and data cut
 * to size, and the count capped. Events that end the run are written apart and not counted, so
 * a run always has its ending in the log.
 */
export class EventBudget {
  private written = 0;

  constructor(private readonly limits: EventLimits) {}

  /** What to write for `event`: itself (trimmed), itself and a note at the limit, or nothing. */
  admit(event: NewRunEvent): NewRunEvent[] {
    const { maxEvents } = this.limits;
    if (this.written > maxEvents) return [];
    this.written += 1;
    if (this.written <= maxEvents) return [this.trim(event)];
    return [eventCapNote(event.runId, event.at, maxEvents)];
  }

  /** The event with its message and data cut to the limits. */
  trim(event: NewRunEvent): NewRunEvent {
    const trimmed = { ...event };
    if (event.message !== undefined) {
      trimmed.message = truncateText(event.message, this.limits.messageBytes);
    }
    if (event.data !== undefined) trimmed.data = trimData(event.data, this.limits.dataValueBytes);
    if (event.detail !== undefined) {
      trimmed.detail = truncateText(event.detail, DETAIL_BYTES);
    }
    return trimmed;
  }
}

/** The note a step log gets in place of the events past its limit of `maxEvents`. */
export function eventCapNote(runId: string, at: Date, maxEvents: number): NewRunEvent {
  return {
    runId,
    at,
    type: "log",
    level: "warn",
    message: `the run reached its limit of ${maxEvents} events in the step log; later events are not recorded (the run goes on)`,
  };
}

/** `text` cut to at most `maxBytes` UTF-8 bytes plus an ellipsis and a note of its real size. */
export function truncateText(text: string, maxBytes: number): string {
  const bytes = Buffer.byteLength(text);
  if (bytes <= maxBytes) return text;
  // Cutting the bytes may split a character; decoding drops the broken tail (U+FFFD removed).
  const head = Buffer.from(text)
    .subarray(0, maxBytes)
    .toString("utf8")
    .replace(/\uFFFD+$/, "");
  return `${head}… [truncated: ${formatBytes(bytes)} in all]`;
}

function trimData(data: Record<string, unknown>, maxBytes: number): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    const bytes = Buffer.byteLength(JSON.stringify(value) ?? "");
    kept[key] =
      bytes <= maxBytes
        ? value
        : `… [${formatBytes(bytes)} of JSON, too large for the step log; the run's data holds it]`;
  }
  return kept;
}
