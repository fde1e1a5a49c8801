import { expect } from "vitest";
import type { RunEvent, RunSession } from "../../src/domain/api-types.js";
import { isTerminal } from "../../src/domain/run-state-machine.js";
import { call } from "./http.js";

/** Talks to one server as one owner: start runs, read them and their events, cancel. */
export class RunClient {
  constructor(
    readonly origin: string,
    readonly key: string,
  ) {}

  async start(skillId: string, inputs?: Record<string, unknown>): Promise<RunSession> {
    const reply = await call(this.origin, "POST", "/v1/run/", {
      key: this.key,
      json: { skill_id: skillId, ...(inputs && { inputs }) },
    });
    expect(reply.status, reply.text).toBe(200);
    return reply.body as RunSession;
  }

  async get(runId: string): Promise<RunSession> {
    const reply = await call(this.origin, "GET", `/v1/run/${runId}`, { key: this.key });
    expect(reply.status, reply.text).toBe(200);
    return reply.body as RunSession;
  }

  async cancel(runId: string): Promise<string> {
    const reply = await call(this.origin, "POST", `/v1/run/${runId}/cancel`, { key: this.key });
    expect(reply.status, reply.text).toBe(200);
    return reply.body as string;
  }

  /** Every event of the run, following the `Link: rel="next"` pages. */
  async events(runId: string, limit = 1000): Promise<RunEvent[]> {
    const events: RunEvent[] = [];
    let url: string | undefined = `/v1/run/${runId}/events?limit=${limit}`;
    while (url !== undefined) {
      const reply = await call(this.origin, "GET", url, { key: this.key });
      expect(reply.status, reply.text).toBe(200);
      events.push(...(reply.body as RunEvent[]));
      url = /<([^>]+)>; rel="next"/.exec(reply.headers.get("link") ?? "")?.[1];
    }
    return events;
  }

  /** Polls the run until `done` holds of it; fails after `timeoutMs`. */
  async waitFor(
    runId: string,
    done: (run: RunSession) => boolean,
    timeoutMs = 20_000,
  ): Promise<RunSession> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const run = await this.get(runId);
      if (done(run)) return run;
      if (Date.now() > deadline) {
        throw new Error(`run ${runId} is still ${String(run.state)} after ${timeoutMs} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Waits until the run has ended. */
  ended(runId: string, timeoutMs?: number): Promise<RunSession> {
    return this.waitFor(runId, (run) => isTerminal(run.state ?? null), timeoutMs);
  }
}

/** The event types of a run's log, in order. */
export function typesOf(events: RunEvent[]): string[] {
  return events.map((event) => event.type);
}
