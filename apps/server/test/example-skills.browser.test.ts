import { loadSkillFile, STEP_KINDS, stepKind, stepKindDefinition } from "@skillrun/engine";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent, RunSession } from "../src/domain/api-types.js";
import { paths } from "../src/paths.js";
import { importSkills, skillFilesAt } from "../src/skills/import-skills.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { FixtureApi } from "./support/fixture-api.js";
import { RunClient, typesOf } from "./support/runs.js";

/**
 * The skills in skills/, imported from their files as `skillrun skills import` does, run end to
 * end through the API and the in-process worker against a local stand-in for the services they
 * call.
 */

/**
 * The skills of skills/ that call HTTP services; each has a describe block below. Skills that
 * also drive a browser (their http steps read the server's own demo pages with the browser's
 * session) are run end to end in browser-runs.browser.test.ts.
 */
const HTTP_SKILLS = [
  "skill_alert_digest",
  "skill_export_report",
  "skill_http_get_json",
  "skill_order_summary",
];

/** Step kinds that drive a browser: a skill with one is a browser skill. */
const BROWSER_KINDS = new Set(
  STEP_KINDS.filter((kind) => stepKindDefinition(kind).browser === true),
);

let server: TestServer;
let api: FixtureApi;
let alice: RunClient;

beforeAll(async () => {
  server = await startTestServer({ worker: { concurrency: 4 } });
  api = await FixtureApi.start();
  await importSkills(server.repos.skills, "alice", paths.skills);
  alice = new RunClient(server.origin, await server.keyFor("alice"));
});

afterEach(() => api.reset());

afterAll(async () => {
  await server?.close();
  await api?.close();
});

/** Starts a run of `skillId` and waits for it to end; returns the run and its step log. */
async function runToEnd(skillId: string, inputs?: Record<string, unknown>) {
  const { id } = await alice.start(skillId, inputs);
  const run = await alice.ended(id);
  return { run, events: await alice.events(id) };
}

/** The events about the step with this id. */
function ofStep(events: RunEvent[], stepId: string): RunEvent[] {
  return events.filter((event) => event.step?.id === stepId);
}

/** The messages of the run's `log` events. */
function logLines(events: RunEvent[]): (string | null)[] {
  return events.filter((event) => event.type === "log").map((event) => event.message);
}

function expectFinished(run: RunSession) {
  expect(run.state, JSON.stringify(run.data)).toBe("finish");
  expect(run.end_time).not.toBeNull();
}

describe("skills/", () => {
  it("has an end-to-end test here for every skill that calls HTTP", async () => {
    const skills = await Promise.all(skillFilesAt(paths.skills).map((file) => loadSkillFile(file)));
    const callingHttp = skills
      .filter((skill) => skill.steps.some((step) => stepKind(step) === "http"))
      .filter((skill) => !skill.steps.some((step) => BROWSER_KINDS.has(stepKind(step))))
      .map((skill) => skill.id)
      .sort();
    expect(callingHttp).toEqual(HTTP_SKILLS);
  });
});

describe("skill_hello", () => {
  it("greets the name given, or the world by default, and logs the greeting", async () => {
    const ada = await runToEnd("skill_hello", { name: "Ada" });
    expectFinished(ada.run);
    expect(ada.run.data).toEqual({ greeting: "Hello, Ada!" });
    expect(logLines(ada.events)).toEqual(["Hello, Ada!"]);

    const anyone = await runToEnd("skill_hello");
    expect(anyone.run.data).toEqual({ greeting: "Hello, world!" });
  });
});

describe("skill_sum", () => {
  it("adds its inputs as numbers, a numeric string included", async () => {
    const { run, events } = await runToEnd("skill_sum", { a: 2, b: "3.5" });
    expectFinished(run);
    expect(run.data).toEqual({ total: 5.5 });
    expect(logLines(events)).toEqual(["2 + 3.5 = 5.5"]);
  });
});

describe("skill_http_get_json", () => {
  const item = { title: "Widget", price: 9.5 };

  it("keeps the response, its status and its title", async () => {
    api.on("GET", "/item.json", (request) =>
      request.headers.accept === "application/json"
        ? { status: 200, json: item }
        : { status: 406, text: "JSON only" },
    );
    const { run, events } = await runToEnd("skill_http_get_json", {
      url: `${api.origin}/item.json`,
    });
    expectFinished(run);
    expect(run.data).toEqual({
      response: {
        status: 200,
        headers: expect.objectContaining({ "content-type": "application/json" }),
        body: item,
      },
      status: 200,
      title: "Widget",
    });
    expect(api.requestsTo("GET", "/item.json")).toHaveLength(1);
    expect(typesOf(events)).toEqual([
      "run_claimed",
      "run_started",
      "step_started",
      "data_updated",
      "step_finished",
      "step_started",
      "data_updated",
      "step_finished",
      "run_finished",
    ]);
  });

  it("retries a failed fetch and finishes when a later attempt succeeds", async () => {
    api.on("GET", "/item.json", (_request, calls) =>
      calls === 1 ? { status: 503, text: "warming up" } : { status: 200, json: item },
    );
    const { run, events } = await runToEnd("skill_http_get_json", {
      url: `${api.origin}/item.json`,
    });
    expectFinished(run);
    expect(run.data).toMatchObject({ status: 200, title: "Widget" });
    expect(
      ofStep(events, "fetch").map((e) => [e.type, e.attempt, e.data?.will_retry ?? null]),
    ).toEqual([
      ["step_started", 1, null],
      ["step_failed", 1, true],
      ["step_started", 2, null],
      ["data_updated", null, null],
      ["step_finished", 2, null],
    ]);
    expect(ofStep(events, "fetch")[1]?.message).toBe(
      `HTTP 503 from GET ${api.origin}/item.json (expected 200): warming up`,
    );
  });

  it("ends in reset after its three attempts when the document keeps failing", async () => {
    api.on("GET", "/item.json", () => ({ status: 500, text: "database down" }));
    const { run, events } = await runToEnd("skill_http_get_json", {
      url: `${api.origin}/item.json`,
    });
    expect(run.state).toBe("reset");
    const message = `HTTP 500 from GET ${api.origin}/item.json (expected 200): database down`;
    expect(run.data).toEqual({ error: { step: "fetch", message } });
    expect(api.requestsTo("GET", "/item.json")).toHaveLength(3);
    const failures = events.filter((e) => e.type === "step_failed");
    expect(failures.map((e) => [e.attempt, e.data?.will_retry])).toEqual([
      [1, true],
      [2, true],
      [3, false],
    ]);
    expect(events.at(-1)).toMatchObject({ type: "run_failed", message: `fetch: ${message}` });
  });
});

describe("skill_order_summary", () => {
  const order = {
    id: "ord_1001",
    status: "paid",
    currency: "EUR",
    customer: { id: "cus_7", name: "Ada Lovelace" },
    items: [
      { sku: "KB-01", name: "Keyboard", price: 49.9, quantity: 1 },
      { sku: "CB-USB", name: "USB-C cable", price: 7.5, quantity: 3 },
      { sku: "MS-02", name: "Mouse", price: 19.99, quantity: 2 },
    ],
  };

  /** The order API: needs the token, knows one order. */
  function orderApi() {
    api.on("GET", "/shop/orders/ord_1001", (request) =>
      request.headers.authorization === "Bearer tok-alice"
        ? { status: 200, json: order }
        : { status: 401, json: { detail: "invalid token" } },
    );
    api.on("GET", "/shop/orders/ord_9999", () => ({
      status: 404,
      json: { detail: "order ord_9999 not found" },
    }));
  }

  it("fetches the order with the token and keeps the fields it picks and computes", async () => {
    orderApi();
    const { run, events } = await runToEnd("skill_order_summary", {
      api_url: `${api.origin}/shop`,
      order_id: "ord_1001",
      api_token: "tok-alice",
    });
    expectFinished(run);
    expect(run.data).toEqual({
      order_id: "ord_1001",
      customer: "Ada Lovelace",
      status: "paid",
      currency: "EUR",
      line_count: 3,
      item_count: 6,
      total: 112.38,
      expensive_items: ["Keyboard", "Mouse"],
    });
    const [request] = api.requestsTo("GET", "/shop/orders/ord_1001");
    expect(request?.headers).toMatchObject({
      accept: "application/json",
      authorization: "Bearer tok-alice",
    });
    expect(logLines(events)).toEqual([
      "Order ord_1001 (paid) for Ada Lovelace: 6 item(s), 112.38 EUR",
    ]);
    expect(typesOf(events)).toEqual([
      "run_claimed",
      "run_started",
      "step_started",
      "step_finished",
      "step_started",
      "data_updated",
      "step_finished",
      "step_started",
      "log",
      "step_finished",
      "run_finished",
    ]);
  });

  it("keeps expensive_items a list when one item is above min_price", async () => {
    orderApi();
    const { run } = await runToEnd("skill_order_summary", {
      api_url: `${api.origin}/shop`,
      order_id: "ord_1001",
      api_token: "tok-alice",
      min_price: "20",
    });
    expectFinished(run);
    expect(run.data).toMatchObject({ expensive_items: ["Keyboard"] });
  });

  it("ends in reset naming the fetch and the API's answer when the order is unknown", async () => {
    orderApi();
    const { run, events } = await runToEnd("skill_order_summary", {
      api_url: `${api.origin}/shop`,
      order_id: "ord_9999",
      api_token: "tok-alice",
    });
    expect(run.state).toBe("reset");
    const message = `HTTP 404 from GET ${api.origin}/shop/orders/ord_9999 (expected 200): {"detail":"order ord_9999 not found"}`;
    expect(run.data).toEqual({ error: { step: "fetch_order", message } });
    expect(typesOf(events).slice(-3)).toEqual(["step_started", "step_failed", "run_failed"]);
    expect(events.at(-2)).toMatchObject({
      step: { id: "fetch_order" },
      data: { will_retry: false },
    });
  });
});

describe("skill_export_report", () => {
  const csv = "region,total\nnorth,120\nsouth,95\neast,87\n";

  /** The reporting API: one export job that is done at the `doneAt`-th poll (never if 0). */
  function reportingApi(doneAt: number) {
    api.on("POST", "/exports", () => ({ status: 202, json: { id: "exp_1", state: "queued" } }));
    api.on("GET", "/exports/exp_1", (_request, calls) =>
      doneAt > 0 && calls >= doneAt
        ? {
            status: 200,
            json: { id: "exp_1", state: "done", download_url: `${api.origin}/files/exp_1.csv` },
          }
        : { status: 202, json: { id: "exp_1", state: "running" } },
    );
    api.on("GET", "/files/exp_1.csv", () => ({ status: 200, text: csv, type: "text/csv" }));
  }

  it("starts the export, polls until the job is done, then downloads and counts the file", async () => {
    reportingApi(3);
    const { run, events } = await runToEnd("skill_export_report", {
      api_url: api.origin,
      report: "sales-2026-q3",
    });
    expectFinished(run);
    expect(run.data).toEqual({
      export_id: "exp_1",
      state: "done",
      download_url: `${api.origin}/files/exp_1.csv`,
      columns: ["region", "total"],
      rows: 3,
    });

    const [start] = api.requestsTo("POST", "/exports");
    expect(start?.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(start?.body ?? "")).toEqual({ report: "sales-2026-q3", format: "csv" });
    // Polled until done, and not once more.
    expect(api.requestsTo("GET", "/exports/exp_1")).toHaveLength(3);
    expect(api.requestsTo("GET", "/files/exp_1.csv")).toHaveLength(1);

    const polling = `HTTP 202 from GET ${api.origin}/exports/exp_1 (expected 200): {"id":"exp_1","state":"running"}`;
    expect(ofStep(events, "poll").map((e) => [e.type, e.attempt, e.message])).toEqual([
      ["step_started", 1, null],
      ["step_failed", 1, polling],
      ["step_started", 2, null],
      ["step_failed", 2, polling],
      ["step_started", 3, null],
      ["step_finished", 3, null],
    ]);
    expect(logLines(events)).toEqual([
      "export exp_1 of sales-2026-q3 started",
      `export exp_1 is ready: 3 row(s) at ${api.origin}/files/exp_1.csv`,
    ]);
  });

  it("ends in reset at the poll step when the job is still running after every attempt", async () => {
    reportingApi(0);
    const { run, events } = await runToEnd("skill_export_report", {
      api_url: api.origin,
      report: "sales-2026-q3",
      format: "xlsx",
    });
    expect(run.state).toBe("reset");
    const message = `HTTP 202 from GET ${api.origin}/exports/exp_1 (expected 200): {"id":"exp_1","state":"running"}`;
    expect(run.data).toEqual({ error: { step: "poll", message } });
    expect(JSON.parse(api.requestsTo("POST", "/exports")[0]?.body ?? "")).toEqual({
      report: "sales-2026-q3",
      format: "xlsx",
    });
    expect(api.requestsTo("GET", "/exports/exp_1")).toHaveLength(8);
    expect(api.requestsTo("GET", "/files/exp_1.csv")).toEqual([]);
    const failures = ofStep(events, "poll").filter((e) => e.type === "step_failed");
    expect(failures.map((e) => e.data?.will_retry)).toEqual([...Array(7).fill(true), false]);
    expect(events.at(-1)).toMatchObject({ type: "run_failed", message: `poll: ${message}` });
  });
});

describe("skill_alert_digest", () => {
  const alerts = [
    { id: "al_1", title: "Disk 91% full on db-1", severity: "critical" },
    { id: "al_2", title: "Certificate of shop.example expires in 12 days", severity: "warning" },
    { id: "al_3", title: "API p99 latency above 2s", severity: "critical" },
  ];
  const inputs = () => ({
    alerts_url: `${api.origin}/monitor/alerts?status=open`,
    webhook_url: `${api.origin}/hooks/T123`,
    webhook_token: "hook-secret",
  });

  /** The monitoring API with these open alerts, and a webhook that answers `hookStatus`. */
  function services(open: unknown[], hookStatus = 200) {
    api.on("GET", "/monitor/alerts", () => ({ status: 200, json: { alerts: open } }));
    api.on("POST", "/hooks/T123", () =>
      hookStatus === 200
        ? { status: 200, json: { ok: true } }
        : { status: hookStatus, text: "upstream down" },
    );
  }

  it("posts a digest of the open alerts to the webhook with the token", async () => {
    services(alerts);
    const { run, events } = await runToEnd("skill_alert_digest", inputs());
    expectFinished(run);
    const summary = "3 open alerts, 2 critical: Disk 91% full on db-1; API p99 latency above 2s";
    const critical = ["Disk 91% full on db-1", "API p99 latency above 2s"];
    expect(run.data).toEqual({
      open_count: 3,
      critical,
      summary,
      notified: true,
      webhook_status: 200,
    });

    expect(api.requestsTo("GET", "/monitor/alerts").map((r) => r.url)).toEqual([
      "/monitor/alerts?status=open",
    ]);
    const posts = api.requestsTo("POST", "/hooks/T123");
    expect(posts).toHaveLength(1);
    expect(posts[0]?.headers).toMatchObject({
      authorization: "Bearer hook-secret",
      "content-type": "application/json",
    });
    expect(posts[0]?.body).toBe(
      JSON.stringify({ channel: "#ops", text: summary, open: 3, critical }),
    );
    expect(typesOf(ofStep(events, "notify"))).toEqual(["step_started", "step_finished"]);
  });

  it("says 'alert' for one, and uses the channel it is given", async () => {
    services([alerts[0]]);
    const { run } = await runToEnd("skill_alert_digest", { ...inputs(), channel: "#db" });
    expectFinished(run);
    expect(run.data).toMatchObject({ summary: "1 open alert, 1 critical: Disk 91% full on db-1" });
    expect(JSON.parse(api.requestsTo("POST", "/hooks/T123")[0]?.body ?? "")).toEqual({
      channel: "#db",
      text: "1 open alert, 1 critical: Disk 91% full on db-1",
      open: 1,
      critical: ["Disk 91% full on db-1"],
    });
  });

  it("skips the post when no alert is open", async () => {
    services([]);
    const { run, events } = await runToEnd("skill_alert_digest", inputs());
    expectFinished(run);
    expect(run.data).toEqual({
      open_count: 0,
      critical: [],
      summary: "0 open alerts, 0 critical",
      notified: false,
      webhook_status: null,
    });
    expect(api.requestsTo("POST", "/hooks/T123")).toEqual([]);
    expect(ofStep(events, "notify")).toMatchObject([
      { type: "step_skipped", step: { index: 3, id: "notify", kind: "http", label: "notify" } },
    ]);
  });

  it("ends in reset naming the notify step when the webhook fails, posting once", async () => {
    services([alerts[0]], 500);
    const { run, events } = await runToEnd("skill_alert_digest", inputs());
    expect(run.state).toBe("reset");
    const message = `HTTP 500 from POST ${api.origin}/hooks/T123 (expected 2xx): upstream down`;
    expect(run.data).toEqual({
      open_count: 1,
      critical: ["Disk 91% full on db-1"],
      summary: "1 open alert, 1 critical: Disk 91% full on db-1",
      error: { step: "notify", message },
    });
    expect(api.requestsTo("POST", "/hooks/T123")).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: "run_failed", message: `notify: ${message}` });
  });
});
