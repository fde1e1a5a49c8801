import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunSession } from "../src/domain/api-types.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call, skillRecord } from "./support/http.js";
import { loggedLines } from "./support/log-lines.js";

/** The access log's lines, and the JSON answers' caching headers, on a real server. */

interface AccessLine {
  level: number;
  msg: string;
  reqId: string;
  req: { method: string; url: string; remoteAddress: string; userAgent?: string };
  res: { statusCode: number; contentLength?: string };
  responseTime: number;
}

let server: TestServer;
let key: string;
let run: RunSession;
const { logger, lines } = loggedLines();

beforeAll(async () => {
  server = await startTestServer({ logger });
  key = await server.keyFor("alice");
  await server.importSkills("alice", [skillRecord("skill_a", "A")]);
  run = await server.repos.runs.create({
    owner: "alice",
    skill: { id: "skill_a", name: "A" },
    inputs: {},
  });
});

afterAll(() => server.close());

/** The access line of the request with id `reqId`, once it is written. */
async function accessLine(reqId: string): Promise<AccessLine> {
  for (let i = 0; i < 100; i += 1) {
    const line = lines.find((l) => l.reqId === reqId && typeof l.responseTime === "number");
    if (line) return line as unknown as AccessLine;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no access line for ${reqId}`);
}

describe("the access log", () => {
  it("writes one line per request with its id, method, address, status, size, time and client", async () => {
    const reply = await call(server.origin, "GET", `/v1/run/${run.id}?token=t0ps3cret`, {
      key,
      headers: { "x-request-id": "req-42", "user-agent": "access-test/1" },
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("x-request-id")).toBe("req-42");
    const line = await accessLine("req-42");
    expect(line).toMatchObject({
      level: 30,
      msg: "request completed",
      req: {
        method: "GET",
        url: `/v1/run/${run.id}?token=[Redacted]`,
        remoteAddress: expect.stringMatching(/127\.0\.0\.1/),
        userAgent: "access-test/1",
      },
      res: { statusCode: 200, contentLength: String(reply.bytes.length) },
    });
    expect(line.responseTime).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(lines)).not.toContain(key);
    expect(JSON.stringify(lines)).not.toContain("t0ps3cret");
  });

  it("gives a request without a usable id a fresh one, and logs a 4xx as a warning", async () => {
    const reply = await call(server.origin, "GET", "/v1/run/run_missing", {
      key,
      headers: { "x-request-id": "not a token!" },
    });
    expect(reply.status).toBe(404);
    const id = reply.headers.get("x-request-id") ?? "";
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await accessLine(id)).toMatchObject({ level: 40, res: { statusCode: 404 } });
  });
});

describe("JSON answers", () => {
  it("carry no ETag and are never a 304, which the contract does not declare for them", async () => {
    const first = await call(server.origin, "GET", `/v1/run/${run.id}`, { key });
    expect(first.status).toBe(200);
    expect(first.headers.get("etag")).toBeNull();
    for (const tag of ["*", 'W/"anything"']) {
      const again = await call(server.origin, "GET", `/v1/run/${run.id}`, {
        key,
        headers: { "if-none-match": tag },
      });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
    }
  });
});
