import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunSession } from "../src/domain/api-types.js";
import { systemClock } from "../src/domain/clock.js";
import { VideoUrlSigner } from "../src/files/signed-url.js";
import {
  startTestServer,
  TEST_VIDEO_SECRET,
  type TestServer,
} from "../src/test-support/test-server.js";
import { type FuzzRequest, type Pools, requestsOf } from "./support/fuzz-requests.js";
import { skillRecord } from "./support/http.js";
import { bodyValidator, declaredResponse, type Operation, operations } from "./support/spec.js";
import { VIDEO_BYTES } from "./support/videos.js";

/**
 * Every operation of openapi.yaml, fuzzed from the spec (fast-check): valid requests get a
 * 2xx, a 404, or a 409 where the run's state does not allow the operation, invalid ones (wrong
 * types, missing and extra fields, NULs and odd unicode, huge and deep values, bad ids, bad query
 * arrays, wrong content types) a 4xx; every answer is a status the spec declares for the
 * operation with a body valid against its schema, never a 5xx. FUZZ_RUNS sets the cases per
 * operation: 50 by default, in each database's pass, each run with a seed of its own, so the
 * cases add up over runs (docs/decisions/0050-both-flavours-in-one-test-run.md);
 * `FUZZ_RUNS=5000` searches longer. A failure prints the seed and path to replay it (FUZZ_SEED,
 * FUZZ_PATH).
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 50);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const PATH = process.env.FUZZ_PATH;

let server: TestServer;
let pools: Pools;
const timings: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
  const key = await server.keyFor("alice");
  await server.importSkills("alice", [
    skillRecord("skill_fuzz", "Fuzz", [
      { id: "in_s", json_key: "s", data_type: "string", required: true },
      { id: "in_n", json_key: "n", data_type: "number", required: false, default: 1 },
    ]),
  ]);
  await server.importSkills("bob", [skillRecord("skill_bob", "Bob's")]);
  const runs: RunSession[] = [];
  for (let i = 0; i < 3; i++) {
    runs.push(
      await server.repos.runs.create({
        owner: "alice",
        skill: { id: "skill_fuzz", name: "Fuzz" },
        inputs: { s: `run ${i}`, n: i },
      }),
    );
  }
  const bobRun = await server.repos.runs.create({
    owner: "bob",
    skill: { id: "skill_bob", name: "Bob's" },
    inputs: {},
  });
  // Every run in the pools has ended (cancelled while queued): a stream of its events closes
  // once sent, where a queued run's would stay open for as long as the run waits.
  for (const run of [...runs, bobRun]) await server.repos.runs.cancel(run.owner, run.id);
  const recorded = runs[0] as RunSession;
  await server.putVideo(recorded.id, VIDEO_BYTES);
  await server.putRunFile(recorded.id, "report.csv", VIDEO_BYTES, { contentType: "text/csv" });
  const nextOf = async (path: string) => {
    const reply = await fetch(`${server.origin}${path}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const link = reply.headers.get("link") ?? "";
    return new URL(/<([^>]+)>/.exec(link)?.[1] ?? "http://x/").searchParams.get("cursor");
  };
  const runCursor = await nextOf("/v1/run/list?limit=1");
  await server.repos.secrets.put("alice", "fuzz_token", "alice's token");
  await server.repos.secrets.put("bob", "bobs_token", "bob's token");
  await server.repos.profiles.put("alice", "fuzz-profile", { cookies: [], origins: [] });
  await server.repos.profiles.put("bob", "bobs-profile", { cookies: [], origins: [] });
  const aliceHook = await server.repos.webhooks.create("alice", "http://127.0.0.1:9/hook", [
    "run.finished",
  ]);
  const bobHook = await server.repos.webhooks.create("bob", "http://127.0.0.1:9/bob", [
    "run.failed",
  ]);
  const deliveryId = "msg_0190a9f4-6c1b-7d3a-9b1e-2f4c5d6e7f80";
  await server.db.prisma.webhookDelivery.create({
    data: {
      id: deliveryId,
      webhookId: aliceHook?.id ?? "",
      runId: recorded.id,
      event: "run.finished",
      body: JSON.stringify(recorded),
      createdAt: new Date(),
      state: "delivered",
    },
  });
  const scheduleOf = async (owner: string, skill: string) => {
    const reply = await fetch(`${server.origin}/v1/schedule`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${owner === "alice" ? key : await server.keyFor(owner)}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({
        skill_id: skill,
        cron: "0 * * * *",
        inputs: skill === "skill_fuzz" ? { s: "x" } : {},
      }),
    });
    expect(reply.status).toBe(201);
    return ((await reply.json()) as { id: string }).id;
  };
  const scheduleIds = [
    await scheduleOf("alice", "skill_fuzz"),
    await scheduleOf("bob", "skill_bob"),
    "sch_0190a9f4-6c1b-7d3a-9b1e-2f4c5d6e7f80",
  ];
  const videoUrl = new URL(server.videoUrlFor(recorded.id));
  pools = {
    key,
    runIds: [...runs.map((r) => r.id), bobRun.id, "run_0190a9f4-6c1b-7d3a-9b1e-2f4c5d6e7f80"],
    skillIds: ["skill_fuzz", "skill_bob", "skill_unknown"],
    runCursors: runCursor ? [runCursor] : [],
    eventCursors: [Buffer.from(JSON.stringify(["event", 0])).toString("base64url")],
    videoTargets: [
      `${videoUrl.pathname}${videoUrl.search}`,
      `/v1/run/${runs[1]?.id}/video${new URL(server.videoUrlFor(runs[1]?.id ?? "")).search}`,
    ],
    // Live views of two runs (a 409 once the fuzz has cancelled one).
    liveTargets: [runs[1]?.id ?? "", recorded.id].map((id) => {
      const url = new URL(
        new VideoUrlSigner(TEST_VIDEO_SECRET, 3600, systemClock).liveUrlFor(server.origin, id, 60),
      );
      return `${url.pathname}${url.search}`;
    }),
    secretNames: ["fuzz_token", "bobs_token", "never_set"],
    profileNames: ["fuzz-profile", "bobs-profile", "never-saved"],
    webhookIds: [aliceHook?.id ?? "", bobHook?.id ?? "", "wh_0190a9f4-6c1b-7d3a-9b1e-2f4c5d6e7f80"],
    deliveryIds: [deliveryId, "msg_unknown"],
    scheduleIds,
    fileTargets: [
      // One file that exists, and a genuine address of one the run does not have (a 404).
      `${new URL(server.fileUrlFor(recorded.id, "report.csv")).pathname}${new URL(server.fileUrlFor(recorded.id, "report.csv")).search}`,
      `${new URL(server.fileUrlFor(recorded.id, "gone.csv")).pathname}${new URL(server.fileUrlFor(recorded.id, "gone.csv")).search}`,
    ],
  };
  expect(pools.runCursors).toHaveLength(1);
});

afterAll(async () => {
  await server?.close();
  if (timings.length > 0)
    console.info(`spec fuzz (${process.env.TEST_FLAVOUR ?? "sqlite"}):\n${timings.join("\n")}`);
});

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

async function send(request: FuzzRequest): Promise<Answer> {
  const control = new AbortController();
  const response = await fetch(`${server.origin}${request.target}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: control.signal,
  });
  const contentType = response.headers.get("content-type") ?? "";
  if (
    !contentType.startsWith("text/event-stream") &&
    !contentType.startsWith("multipart/x-mixed-replace")
  ) {
    return { status: response.status, contentType, text: await response.text() };
  }
  // A live stream may stay open for good: its first message, or what came in 200 ms, will do.
  const timer = setTimeout(() => control.abort(), 200);
  let text = "";
  try {
    for await (const chunk of response.body ?? []) {
      text += Buffer.from(chunk).toString("utf8");
      if (text.includes("\n\n")) break;
    }
  } catch (error) {
    if (!control.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
    control.abort();
  }
  return { status: response.status, contentType, text };
}

/** Why the answer breaks the contract for this request, or null when it keeps it. */
function breach(op: Operation, request: FuzzRequest, answer: Answer): string | null {
  const status = String(answer.status);
  if (answer.status >= 500) return `a ${status}: ${answer.text.slice(0, 200)}`;
  if (!op.statuses.includes(status))
    return `undeclared status ${status}: ${answer.text.slice(0, 200)}`;
  // No request shape avoids a 409: it says the run's state does not allow the operation (a
  // pause of an ended run), and the operation must declare it.
  const limited =
    request.limitMessage !== undefined &&
    answer.status === 422 &&
    answer.text.includes(request.limitMessage);
  if (
    request.valid &&
    !(answer.status < 400 || answer.status === 404 || answer.status === 409 || limited)
  ) {
    return `a valid request got ${status}: ${answer.text.slice(0, 300)}`;
  }
  if (!request.valid && answer.status < 400 && answer.status >= 300 && answer.status !== 304) {
    return `an invalid request got ${status}`;
  }
  const declared = declaredResponse(op, status).content;
  if (declared["application/json"]) {
    if (!answer.contentType.startsWith("application/json")) {
      return `${status} with content type ${answer.contentType}`;
    }
    const validate = bodyValidator(op, status);
    if (!validate(JSON.parse(answer.text))) {
      return `${status} body breaks the schema: ${JSON.stringify(validate.errors)} ${answer.text.slice(0, 200)}`;
    }
  } else if (Object.keys(declared).length > 0) {
    const media = answer.contentType.split(";")[0] ?? "";
    // `*/*`: the body keeps the content type it was stored with (a run's file).
    if (!(media in declared) && !("*/*" in declared)) {
      return `${status} with undeclared content type ${answer.contentType}`;
    }
  }
  return null;
}

describe("every operation of openapi.yaml, fuzzed", () => {
  for (const op of operations()) {
    it(`${op.method} ${op.path} (${op.operationId})`, { timeout: 600_000 }, async () => {
      const started = performance.now();
      let cases = 0;
      await fc.assert(
        fc.asyncProperty(requestsOf(op, pools), async (request) => {
          cases += 1;
          const answer = await send(request);
          const fault = breach(op, request, answer);
          if (fault !== null) {
            throw new Error(`${request.method} ${request.target.slice(0, 300)}: ${fault}`);
          }
        }),
        { numRuns: RUNS, seed: SEED, path: PATH },
      );
      const ms = performance.now() - started;
      timings.push(
        `  ${op.operationId}: ${cases} cases in ${Math.round(ms)} ms (${(ms / cases).toFixed(2)} ms each)`,
      );
    });
  }
});
