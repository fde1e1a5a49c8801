import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call, type Reply } from "./support/http.js";
import { loggedLines } from "./support/log-lines.js";

// An owner that keeps asking after a 429 has its further 429s held (http/refusal-pacing.ts):
// the first ten of a second are answered at once, the others after half a second to a second,
// each still the API's 429. Other owners are answered meanwhile, and nothing breaks when the
// client leaves or the server shuts down while an answer is held.

const BODY = {
  detail: "Too many requests: this owner's rate limit is used up; retry after Retry-After seconds",
};
/** More than twice the ten a second answered at once: some are held even across a second's end. */
const CROWD = 25;
/** The shortest hold (half of HOLD_MS), less a margin for the timers' rounding. */
const SHORTEST_HOLD_MS = 450;

let server: TestServer;
const log = loggedLines();

beforeAll(async () => {
  server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: "1" }, logger: log.logger });
});
afterAll(async () => {
  await server?.close();
});

/** `CROWD` requests of one key at once, each with the time its answer took. */
function crowd(origin: string, key: string): Promise<{ reply: Reply; ms: number }>[] {
  return Array.from({ length: CROWD }, async () => {
    const sent = performance.now();
    const reply = await call(origin, "GET", "/v1/run/list", { key });
    return { reply, ms: performance.now() - sent };
  });
}

describe("refusal pacing", () => {
  it("holds an owner's 429s past ten a second, answers other owners meanwhile", async () => {
    const erin = await server.keyFor("erin");
    expect((await call(server.origin, "GET", "/v1/run/list", { key: erin })).status).toBe(200);
    const refused = crowd(server.origin, erin);
    const other = await call(server.origin, "GET", "/v1/run/list", {
      key: await server.keyFor("frank"),
    });
    const answered = await Promise.all(refused);
    expect(other.status).toBe(200);
    for (const { reply } of answered) {
      expect(reply.status, reply.text).toBe(429);
      expect(reply.body).toEqual(BODY);
      expect(Number(reply.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(reply.headers.get("ratelimit")).toMatch(/^"owner"; r=0; t=\d+$/);
    }
    const held = answered.filter(({ ms }) => ms >= SHORTEST_HOLD_MS);
    expect(held.length).toBeGreaterThanOrEqual(CROWD - 20);
    expect(held.length).toBeLessThanOrEqual(CROWD - 10);
  });

  it("drops a held answer whose client left, and goes on serving", async () => {
    const gina = await server.keyFor("gina");
    await call(server.origin, "GET", "/v1/run/list", { key: gina });
    // Each client leaves before the shortest hold is over: those held leave unanswered.
    const left = Array.from(
      { length: CROWD },
      () =>
        new Promise<void>((resolve) => {
          const req = request(new URL("/v1/run/list", server.origin), {
            headers: { authorization: `Bearer ${gina}` },
          });
          req.once("error", () => resolve());
          req.once("response", (res) => res.resume().once("end", resolve));
          req.end(() => setTimeout(() => req.destroy(), SHORTEST_HOLD_MS / 2));
        }),
    );
    await Promise.all(left);
    // The access log says which: a 429 whose client left before it was sent.
    await expect
      .poll(
        () =>
          log.lines.filter(
            (line) =>
              line.msg === "request aborted" &&
              (line.res as { statusCode: number }).statusCode === 429,
          ).length,
      )
      .toBeGreaterThanOrEqual(CROWD - 20);
    const reply = await call(server.origin, "GET", "/v1/run/list", {
      key: await server.keyFor("hugo"),
    });
    expect(reply.status).toBe(200);
  });

  it("answers the held 429s when the server shuts down", async () => {
    const own = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: "1" } });
    const ivan = await own.keyFor("ivan");
    await call(own.origin, "GET", "/v1/run/list", { key: ivan });
    // Settled either way: a request the closing server had not yet received fails to connect.
    const refused = crowd(own.origin, ivan).map((reply) =>
      reply.then(
        ({ reply: answer }) => ({ status: answer.status, at: performance.now() }),
        () => ({ status: 0, at: performance.now() }),
      ),
    );
    let answered = 0;
    for (const reply of refused) void reply.then(() => (answered += 1));
    // The prompt answers are back: the crowd's other requests that reached the server are held.
    await expect.poll(() => answered).toBeGreaterThanOrEqual(10);
    const closing = performance.now();
    await own.close();
    const settled = await Promise.all(refused);
    // Nothing hangs, every answer is the API's 429, and held ones were answered once the close
    // began.
    expect(settled.filter((reply) => reply.status !== 0).every((r) => r.status === 429)).toBe(true);
    const releasedByClose = settled.filter((r) => r.status === 429 && r.at >= closing);
    expect(releasedByClose.length).toBeGreaterThanOrEqual(1);
  });
});
