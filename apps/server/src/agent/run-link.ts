import { agentEventOf } from "../agent-api/agent-events.js";
import { CANCELLED_DETAIL_ENDING } from "../agent-api/protocol.js";
import type { NewRunEvent } from "../db/repositories/run-events.js";
import type { HeldRunState, Holder } from "../db/repositories/run-execution.js";
import type { RunWrite } from "../db/runs/record.js";
import type { PausedFor, ResumeInput } from "../domain/paused-for.js";
import type { PauseWrites } from "../worker/run-pause.js";
import { type AgentRunStatus, RunNotHeld, type ServerLink } from "./server-link.js";

/** How the agent learns of a run it no longer holds: cancelled, or taken from it. */
export type RunLoss = "cancel" | "lost";

// A write that fails (the network, the server restarting) is tried again this many times, with
// these pauses, before the step log's writer is told it failed.
const RETRY_DELAYS_MS = [250, 1000, 2000];

/** The most events one call carries (`maxItems` of AgentEventsRequest and AgentEndRequest). */
export const AGENT_EVENTS_PER_CALL = 500;

/**
 * A write tried again found the run no longer held: the try before may have been stored (its
 * answer lost), so its events are neither known written nor to be written again.
 */
class EventsInDoubt extends Error {}

/**
 * One run's writes over the agent endpoints: the step log (`record`, as EventWriter calls it),
 * pauses (as RunPause calls them) and the watch's look at the run, each a call to
 * `POST /agent/run/{id}/events`. So the worker's own EventWriter and RunPause drive an agent's
 * run unchanged. A 409 means the run is no longer this agent's: `onLoss` is told which way.
 */
export class RunLink implements PauseWrites {
  constructor(
    private readonly server: ServerLink,
    private readonly runId: string,
    private readonly onLoss: (loss: RunLoss) => void,
  ) {}

  /**
   * The step log's write: events, data, the step with effects, in calls of at most
   * AGENT_EVENTS_PER_CALL events (the data and the step with effects with the last). False once
   * not held; throws when a call tried again found it not held (see EventsInDoubt), so that the
   * writer does not keep those events for the ending to write a second time.
   */
  async record(_holder: Holder, write: RunWrite): Promise<boolean> {
    const events = write.events.map(agentEventOf);
    for (let from = 0; ; from += AGENT_EVENTS_PER_CALL) {
      const last = from + AGENT_EVENTS_PER_CALL >= events.length;
      const status = await this.send({
        events: events.slice(from, from + AGENT_EVENTS_PER_CALL),
        ...(last && write.data !== undefined && { data: write.data }),
        ...(last && write.effects !== undefined && { effects: write.effects }),
      });
      if (status === null) return false;
      if (last) return true;
    }
  }

  async pause(
    _holder: Holder,
    pausedFor: PausedFor,
    event: NewRunEvent,
  ): Promise<"paused" | "called_off" | "not_held"> {
    const step = event.step;
    if (step === undefined) throw new Error("a pause names its step");
    const status = await this.send({
      events: [],
      pause: {
        reason: pausedFor.reason,
        step: agentEventOf({ ...event, type: "log" }).step as NonNullable<
          ReturnType<typeof agentEventOf>["step"]
        >,
        expires_at: pausedFor.expires_at,
        ...(pausedFor.reason === "ask" && { prompt: pausedFor.prompt, schema: pausedFor.schema }),
      },
    });
    return status?.paused ?? "not_held";
  }

  async unpause(_holder: Holder, _event: NewRunEvent): Promise<boolean> {
    return (await this.send({ events: [], unpause: true })) !== null;
  }

  async takeResume(_holder: Holder, _event: NewRunEvent): Promise<ResumeInput | null> {
    const status = await this.send({ events: [], take_resume: true });
    const resume = status?.resume;
    if (resume === undefined || resume === null) return null;
    return "answer" in resume ? { answer: resume.answer } : {};
  }

  /** The watch's look (and the lease's renewal): the run as a worker's watch reads it. */
  async look(workerId: string): Promise<HeldRunState | null> {
    const status = await this.send({ events: [] }, false);
    if (status === null) return null;
    return {
      id: this.runId,
      state: status.state ?? null,
      workerId,
      pauseRequested: status.pause_requested,
      // Nobody watches a client run live: the live view is the workers' (decision 0065).
      watchEndsAt: null,
    };
  }

  /** One call; null when the run is not held. Retried on failures unless `retry` is false. */
  private async send(
    body: Parameters<ServerLink["events"]>[1],
    retry = true,
  ): Promise<AgentRunStatus | null> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.server.events(this.runId, body);
      } catch (error) {
        if (error instanceof RunNotHeld) {
          this.onLoss(error.message.endsWith(CANCELLED_DETAIL_ENDING) ? "cancel" : "lost");
          if (attempt > 0 && body.events.length > 0) {
            throw new EventsInDoubt("the run was lost while its events were sent again");
          }
          return null;
        }
        const delay = RETRY_DELAYS_MS[attempt];
        if (!retry || delay === undefined) throw error;
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }
}
