import type { components } from "@skillrun/contract";
import type { NewRunEvent } from "../db/repositories/run-events.js";
import { DEFAULT_EVENT_LIMITS, EventBudget, eventCapNote } from "../worker/event-limits.js";

export type AgentEvent = components["schemas"]["AgentEvent"];
export type AgentStepRef = components["schemas"]["AgentStepRef"];

/**
 * The step log's entries of events an agent sent for `runId`, cut to the step log's sizes as a
 * worker's are. The spec has checked their form and allowed only the types an engine reports;
 * the run's own events (claimed, ended, paused) are written by the server alone.
 */
export function runEventsOf(runId: string, events: readonly AgentEvent[]): NewRunEvent[] {
  const budget = new EventBudget(DEFAULT_EVENT_LIMITS);
  return events.map((event) => budget.trim(runEventOf(runId, event)));
}

/**
 * What the step log keeps of a batch an agent sent, `written` events into the run's claim: as a
 * worker's EventBudget keeps them, up to `maxEvents`, then one note, then nothing. Counted by the
 * server, so an agent that sends more than its share cannot fill the database.
 */
export function withinEventCap(
  events: NewRunEvent[],
  written: number,
  maxEvents: number = DEFAULT_EVENT_LIMITS.maxEvents,
): NewRunEvent[] {
  const [first] = events;
  if (first === undefined || written > maxEvents) return [];
  const room = maxEvents - written;
  if (events.length <= room) return events;
  const note = eventCapNote(first.runId, events[room]?.at ?? first.at, maxEvents);
  return [...events.slice(0, room), note];
}

function runEventOf(runId: string, event: AgentEvent): NewRunEvent {
  return {
    runId,
    at: new Date(event.at),
    type: event.type,
    ...(event.step && { step: stepOf(event.step) }),
    ...(event.attempt !== undefined && { attempt: event.attempt }),
    ...(event.duration_ms !== undefined && { durationMs: event.duration_ms }),
    ...(event.level !== undefined && { level: event.level }),
    ...(event.message !== undefined && { message: event.message }),
    ...(event.data !== undefined && { data: event.data }),
    ...(event.video_offset_ms !== undefined && { videoOffsetMs: event.video_offset_ms }),
    ...(event.detail !== undefined && { detail: event.detail }),
    ...(event.file !== undefined && { file: event.file }),
  };
}

/** A step as the step log keeps it. */
export function stepOf(step: AgentStepRef): NonNullable<NewRunEvent["step"]> {
  return {
    index: step.index,
    kind: step.kind,
    label: step.label,
    ...(step.id !== undefined && { id: step.id }),
  };
}

/** The wire form of a step-log entry (the agent's side of runEventsOf). */
export function agentEventOf(event: NewRunEvent): AgentEvent {
  return {
    at: event.at.toISOString(),
    type: event.type as AgentEvent["type"],
    ...(event.step && {
      step: {
        index: event.step.index,
        kind: event.step.kind,
        label: event.step.label,
        ...(event.step.id !== undefined && { id: event.step.id }),
      },
    }),
    ...(event.attempt !== undefined && { attempt: event.attempt }),
    ...(event.durationMs !== undefined && {
      duration_ms: Math.max(0, Math.round(event.durationMs)),
    }),
    ...(event.level !== undefined && { level: event.level }),
    ...(event.message !== undefined && { message: event.message }),
    ...(event.data !== undefined && { data: event.data }),
    ...(event.videoOffsetMs !== undefined && {
      video_offset_ms: Math.max(0, Math.round(event.videoOffsetMs)),
    }),
    ...(event.detail !== undefined && { detail: event.detail }),
    ...(event.file !== undefined && { file: event.file }),
  };
}
