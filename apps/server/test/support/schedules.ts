import { expect } from "vitest";
import type { Clock } from "../../src/domain/clock.js";
import type { TestServer } from "../../src/test-support/test-server.js";
import { call, type Reply } from "./http.js";

/** A clock a test sets and moves: what a server on it takes for now. */
export class TestClock implements Clock {
  private at: number;

  constructor(start: string | number) {
    this.at = typeof start === "number" ? start : Date.parse(start);
  }

  now(): Date {
    return new Date(this.at);
  }

  set(to: string | number): void {
    this.at = typeof to === "number" ? to : Date.parse(to);
  }

  advance(ms: number): void {
    this.at += ms;
  }
}

/** POST /v1/schedule as `key`'s owner. */
export function createSchedule(
  server: TestServer,
  key: string,
  body: Record<string, unknown>,
): Promise<Reply> {
  return call(server.origin, "POST", "/v1/schedule", { key, json: body });
}

/** A new schedule of `key`'s owner; returns its id (the create must answer 201). */
export async function newSchedule(
  server: TestServer,
  key: string,
  body: Record<string, unknown>,
): Promise<string> {
  const reply = await createSchedule(server, key, body);
  expect(reply.status, reply.text).toBe(201);
  return (reply.body as { id: string }).id;
}

/** The schedule's ticks, newest first (GET /v1/schedule/{id}/ticks). */
export async function ticksOf(
  server: TestServer,
  key: string,
  id: string,
): Promise<Record<string, unknown>[]> {
  const reply = await call(server.origin, "GET", `/v1/schedule/${id}/ticks`, { key });
  expect(reply.status, reply.text).toBe(200);
  return reply.body as Record<string, unknown>[];
}

/** The runs a schedule started, as the database holds them: id, scheduled time, state. */
export async function runsOfSchedule(
  server: TestServer,
  scheduleId: string,
): Promise<{ id: string; scheduledAt: Date | null; state: string | null }[]> {
  return server.db.prisma.run.findMany({
    where: { scheduleId },
    select: { id: true, scheduledAt: true, state: true },
    orderBy: { scheduledAt: "asc" },
  });
}
