import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { loggedLines } from "./support/log-lines.js";
import { OtlpReceiver, type ReceivedSpan } from "./support/otlp-receiver.js";
import { RunClient } from "./support/runs.js";
import { type SkillrunProcess, startWorkerProcess } from "./support/skillrun-process.js";

/**
 * Traces with OTEL_EXPORTER_OTLP_ENDPOINT set, on TEST_FLAVOUR's database: the spans reach an
 * OTLP/HTTP receiver on loopback (JSON), the request that starts a run, the run (in the worker)
 * and its steps (in the run process) in one trace, and an `http` step's request carries the
 * step's traceparent to the server it calls.
 */

const TRACED_SKILL = `
id: skill_traced
name: Traced
inputs:
  - { json_key: url, data_type: string }
steps:
  - id: prepare
    set: { a: 1 }
  - id: call
    http: { url: "{{ inputs.url }}" }
`;

const receiver = new OtlpReceiver();
/** The traceparent headers the server an `http` step calls received. */
const called: (string | undefined)[] = [];
let target: Server;
let targetUrl: string;
let server: TestServer;
let runs: RunClient;
let logs: ReturnType<typeof loggedLines>;

type Line = Record<string, unknown> & { req?: { method?: string; url?: string } };

beforeAll(async () => {
  await receiver.start();
  target = createServer((req, res) => {
    called.push(req.headers.traceparent as string | undefined);
    res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/called`;
  logs = loggedLines();
  server = await startTestServer({
    worker: { concurrency: 1 },
    logger: logs.logger,
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: "skillrun-test" },
  });
  await server.importSkillYaml("alice", TRACED_SKILL);
  runs = new RunClient(server.origin, await server.keyFor("alice"));
});

afterAll(async () => {
  await server?.close();
  await receiver.close();
  target?.close();
});

const named = (spans: ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);

describe("a traced run", () => {
  it("puts the request, the run and its steps in one trace, and sends traceparent", async () => {
    const run = await runs.start("skill_traced", { url: targetUrl });
    await runs.waitFor(run.id, (r) => r.state === "finish");
    const spans = await receiver.until(
      (all) =>
        all.some((s) => s.name === "POST startRun") &&
        all.some((s) => s.attributes["skillrun.run_id"] === run.id && s.name.startsWith("run ")) &&
        all.filter((s) => s.attributes["skillrun.run_id"] === run.id).length >= 3,
    );
    const [request] = named(spans, "POST startRun");
    const [runSpan] = named(spans, "run skill_traced").filter(
      (s) => s.attributes["skillrun.run_id"] === run.id,
    );
    expect(request).toBeDefined();
    expect(runSpan).toBeDefined();
    if (!request || !runSpan) return;
    expect(request.service).toBe("skillrun-test");
    expect(runSpan.traceId).toBe(request.traceId);
    expect(runSpan.parentSpanId).toBe(request.spanId);

    const steps = spans.filter((s) => s.name.startsWith("step ") && s.traceId === request.traceId);
    expect(steps.map((s) => s.attributes["skillrun.step"]).sort()).toEqual(["call", "prepare"]);
    for (const step of steps) {
      expect(step.parentSpanId).toBe(runSpan.spanId);
      expect(step.attributes["skillrun.run_id"]).toBe(run.id);
    }
    const callSpan = steps.find((s) => s.attributes["skillrun.step"] === "call") as ReceivedSpan;
    expect(callSpan.attributes["skillrun.step.kind"]).toBe("http");

    // The server the step called was told of the step's span.
    expect(called.at(-1)).toBe(`00-${callSpan.traceId}-${callSpan.spanId}-01`);

    // The request's access line and the worker's lines of the run carry the trace id.
    const lines = logs.lines as Line[];
    const access = lines.find(
      (l) => l.msg === "request completed" && l.req?.method === "POST" && l.req?.url === "/v1/run/",
    );
    expect(access?.trace_id).toBe(request.traceId);
    const ended = lines.find((l) => l.runId === run.id && l.state === "finish");
    expect(ended?.trace_id).toBe(request.traceId);
  });

  it("continues the caller's trace when the request carries a traceparent", async () => {
    const caller = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const reply = await call(server.origin, "GET", "/v1/run/list", {
      key: await server.keyFor("alice"),
      headers: { traceparent: caller },
    });
    expect(reply.status).toBe(200);
    const spans = await receiver.until((all) => all.some((s) => s.name === "GET listRuns"));
    const list = named(spans, "GET listRuns").at(-1) as ReceivedSpan;
    expect(list.traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(list.parentSpanId).toBe("b7ad6b7169203331");
  });

  it("links a rerun's span to the request that asked for it, in a trace of its own", async () => {
    const key = await server.keyFor("alice");
    const first = await runs.start("skill_traced", { url: targetUrl });
    await runs.waitFor(first.id, (r) => r.state === "finish");
    const reply = await call(server.origin, "POST", `/v1/run/${first.id}/rerun`, {
      key,
      json: { from_step: "call" },
    });
    expect(reply.status, reply.text).toBe(201);
    const rerunId = (reply.body as { id: string }).id;
    await runs.waitFor(rerunId, (r) => r.state === "finish");
    const spans = await receiver.until(
      (all) =>
        all.some((s) => s.name === "POST rerunRun") &&
        all.some((s) => s.attributes["skillrun.run_id"] === rerunId && s.name.startsWith("run ")),
    );
    const request = named(spans, "POST rerunRun").at(-1) as ReceivedSpan;
    const rerun = spans.find(
      (s) => s.attributes["skillrun.run_id"] === rerunId && s.name.startsWith("run "),
    ) as ReceivedSpan;
    expect(rerun.traceId).not.toBe(request.traceId);
    expect(rerun.parentSpanId).toBe("");
    expect(rerun.links).toEqual([{ traceId: request.traceId, spanId: request.spanId }]);
    expect(rerun.attributes["skillrun.rerun_of"]).toBe(first.id);
  });
});

describe("a run executed by a `skillrun worker` process", () => {
  let api: TestServer;
  let worker: SkillrunProcess | undefined;

  beforeAll(async () => {
    // No worker of its own: the run crosses to the worker process through the database.
    api = await startTestServer({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: "skillrun-api" },
    });
    await api.importSkillYaml("alice", TRACED_SKILL);
  });

  afterAll(async () => {
    await worker?.stop();
    await api?.close();
  });

  it("continues the request's trace in the worker and its run process", async () => {
    worker = await startWorkerProcess(api.databaseUrl, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_SERVICE_NAME: "skillrun-worker",
      ALLOW_PRIVATE_NETWORKS: "true",
    });
    const client = new RunClient(api.origin, await api.keyFor("alice"));
    const run = await client.start("skill_traced", { url: targetUrl });
    await client.waitFor(run.id, (r) => r.state === "finish");
    const spans = await receiver.until(
      (all) => all.filter((s) => s.attributes["skillrun.run_id"] === run.id).length >= 3,
    );
    const ofRun = spans.filter((s) => s.attributes["skillrun.run_id"] === run.id);
    const runSpan = ofRun.find((s) => s.name === "run skill_traced") as ReceivedSpan;
    const request = spans.find(
      (s) =>
        s.service === "skillrun-api" &&
        s.name === "POST startRun" &&
        s.spanId === runSpan.parentSpanId,
    );
    expect(request?.traceId).toBe(runSpan.traceId);
    expect(runSpan.service).toBe("skillrun-worker");
    const steps = ofRun.filter((s) => s.name.startsWith("step "));
    expect(steps).toHaveLength(2);
    for (const step of steps) {
      expect(step.traceId).toBe(runSpan.traceId);
      expect(step.parentSpanId).toBe(runSpan.spanId);
    }
  });
});
