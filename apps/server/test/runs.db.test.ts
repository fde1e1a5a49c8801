import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { RunSession, Skill } from "../src/domain/api-types.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import {
  type CallOptions,
  call,
  type Reply,
  RUN_ID,
  skillRecord,
  TIMESTAMP,
} from "./support/http.js";
import { spec, specText } from "./support/spec.js";

/** Run semantics (openapi.yaml, docs/api.md "Runs: states") and the service's edges. */

let server: TestServer;
let alice: string;
/** How far the server's clock runs ahead of the system's; a test moves it to make time pass. */
let clockAheadMs = 0;

const PRICE = "skill_price_check";
const NOTIFY = "skill_notify";

beforeAll(async () => {
  server = await startTestServer({ clock: { now: () => new Date(Date.now() + clockAheadMs) } });
  alice = await server.keyFor("alice");
  await server.importSkills("alice", [
    skillRecord(PRICE, "Price check", [
      { id: "in_url", json_key: "url", data_type: "string", required: false, default: "u" },
    ]),
    skillRecord(NOTIFY, "Notify"),
  ]);
});

afterAll(async () => {
  await server?.close();
});

function get(url: string, options: CallOptions = { key: alice }) {
  return call(server.origin, "GET", url, options);
}

function post(url: string, options: CallOptions = { key: alice }) {
  return call(server.origin, "POST", url, options);
}

/** Starts a run over HTTP for `key`'s owner and returns it. */
async function startRun(skillId: string, key = alice): Promise<RunSession> {
  const reply = await post("/v1/run/", { key, json: { skill_id: skillId } });
  expect(reply.status, reply.text).toBe(200);
  return reply.body as RunSession;
}

/** A fresh owner with a key and the two skills, so list tests see only their own runs. */
async function freshOwner(owner: string): Promise<string> {
  await server.importSkills(owner, [
    skillRecord(PRICE, "Price check"),
    skillRecord(NOTIFY, "Notify"),
  ]);
  return server.keyFor(owner);
}

function ids(reply: Reply): string[] {
  expect(reply.status, reply.text).toBe(200);
  return (reply.body as RunSession[]).map((r) => r.id);
}

/** The address in a `Link: <…>; rel="next"` header, or null when there is none. */
function nextLink(reply: Reply): string | null {
  const link = reply.headers.get("link");
  if (link === null) return null;
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  expect(match, `Link: ${link}`).not.toBeNull();
  return match?.[1] ?? null;
}

/** Follows `Link: rel="next"` from `first` to the last page; returns every page's run ids. */
async function allPages(first: string, key: string): Promise<string[][]> {
  const pages: string[][] = [];
  let url: string | null = first;
  while (url !== null) {
    const reply = await get(url, { key });
    pages.push(ids(reply));
    url = nextLink(reply);
    if (pages.length > 50) throw new Error("the Link headers never end");
  }
  return pages;
}

describe("starting a run", () => {
  it("queues it with state null, accepted and started at the time of the request", async () => {
    const before = Date.now();
    const reply = await post("/v1/run/", { key: alice, json: { skill_id: PRICE } });
    const after = Date.now();
    expect(reply.status, reply.text).toBe(200);
    const run = reply.body as RunSession;

    expect(run.state).toBeNull();
    expect(run.end_time ?? null).toBeNull();
    expect(run.skill_id).toBe(PRICE);
    expect(run.owner).toBe("alice");
    expect(run.name).toBe("Price check");
    expect(run.id).toMatch(RUN_ID);
    expect(run.created_at).toMatch(TIMESTAMP);
    expect(run.start_time).toBe(run.created_at);
    const accepted = Date.parse(run.created_at);
    expect(accepted).toBeGreaterThanOrEqual(before);
    expect(accepted).toBeLessThanOrEqual(after);
  });

  it("returns the same run from GET /run/{id}", async () => {
    const run = await startRun(PRICE);
    const reply = await get(`/v1/run/${run.id}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(run);
  });

  it("gives every run its own id", async () => {
    const runs = await Promise.all([startRun(PRICE), startRun(PRICE), startRun(PRICE)]);
    expect(new Set(runs.map((r) => r.id)).size).toBe(3);
  });

  it("accepts POST /v1/run without the trailing slash as POST /v1/run/", async () => {
    for (const path of ["/v1/run/", "/v1/run"]) {
      const reply = await post(path, { key: alice, json: { skill_id: NOTIFY } });
      expect(reply.status, `${path}: ${reply.text}`).toBe(200);
      expect((reply.body as RunSession).skill_id).toBe(NOTIFY);
    }
  });
});

describe("listing runs", () => {
  it("lists the caller's runs newest first, and no one else's", async () => {
    const key = await freshOwner("lister");
    const mine = [];
    for (let i = 0; i < 4; i++) mine.push(await startRun(i % 2 ? PRICE : NOTIFY, key));
    await startRun(PRICE); // alice's

    const reply = await get("/v1/run/list", { key });
    expect(ids(reply)).toEqual(mine.map((r) => r.id).reverse());
    expect((reply.body as RunSession[]).every((r) => r.owner === "lister")).toBe(true);
  });

  it("orders by created_at descending, then id descending", async () => {
    const key = await freshOwner("orderer");
    for (let i = 0; i < 6; i++) await startRun(PRICE, key);
    const runs = (await get("/v1/run/list", { key })).body as RunSession[];
    const sorted = [...runs].sort(
      (a, b) =>
        b.created_at.localeCompare(a.created_at) || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0),
    );
    expect(runs.map((r) => r.id)).toEqual(sorted.map((r) => r.id));
  });

  it("filters by skill_id", async () => {
    const key = await freshOwner("skill-filter");
    const price = [await startRun(PRICE, key), await startRun(PRICE, key)];
    await startRun(NOTIFY, key);

    const reply = await get(`/v1/run/list?skill_id=${PRICE}`, { key });
    expect(ids(reply)).toEqual(price.map((r) => r.id).reverse());
    expect(ids(await get("/v1/run/list?skill_id=skill_unknown", { key }))).toEqual([]);
  });

  it("filters by state with repeated state_filter keys, leaving queued runs out", async () => {
    const key = await freshOwner("state-filter");
    const cancelled = await startRun(PRICE, key);
    const queued = await startRun(PRICE, key);
    expect((await post(`/v1/run/${cancelled.id}/cancel`, { key })).body).toBe("cancel");

    expect(ids(await get("/v1/run/list?state_filter=cancel", { key }))).toEqual([cancelled.id]);
    expect(ids(await get("/v1/run/list?state_filter=play&state_filter=cancel", { key }))).toEqual([
      cancelled.id,
    ]);
    expect(ids(await get("/v1/run/list?state_filter=play&state_filter=pause", { key }))).toEqual(
      [],
    );
    // Without a filter the queued run is listed too.
    expect(ids(await get("/v1/run/list", { key }))).toEqual([queued.id, cancelled.id]);
  });

  it("combines skill_id and state_filter", async () => {
    const key = await freshOwner("both-filters");
    const price = await startRun(PRICE, key);
    const notify = await startRun(NOTIFY, key);
    await post(`/v1/run/${price.id}/cancel`, { key });
    await post(`/v1/run/${notify.id}/cancel`, { key });

    const reply = await get(`/v1/run/list?skill_id=${NOTIFY}&state_filter=cancel`, { key });
    expect(ids(reply)).toEqual([notify.id]);
  });

  it("returns at most `limit` runs, with a Link to the next page", async () => {
    const key = await freshOwner("limited");
    for (let i = 0; i < 3; i++) await startRun(PRICE, key);

    const reply = await get("/v1/run/list?limit=2", { key });
    expect(ids(reply)).toHaveLength(2);
    expect(nextLink(reply)).not.toBeNull();
  });

  it("pages through every run with limit and the Link header, none missed or repeated", async () => {
    const key = await freshOwner("pager");
    const created = [];
    for (let i = 0; i < 7; i++) created.push(await startRun(i % 3 ? PRICE : NOTIFY, key));

    const pages = await allPages("/v1/run/list?limit=3", key);
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(pages.flat()).toEqual(created.map((r) => r.id).reverse());
  });

  it("keeps the filters in the Link to the next page", async () => {
    const key = await freshOwner("filtered-pager");
    const wanted = [];
    for (let i = 0; i < 5; i++) {
      const run = await startRun(PRICE, key);
      await post(`/v1/run/${run.id}/cancel`, { key });
      wanted.push(run.id);
      await startRun(NOTIFY, key);
    }
    await startRun(PRICE, key); // queued: filtered out by state

    const first = await get(`/v1/run/list?skill_id=${PRICE}&state_filter=cancel&limit=2`, {
      key,
    });
    const next = new URL(nextLink(first) ?? "", server.origin);
    expect(next.searchParams.get("skill_id")).toBe(PRICE);
    expect(next.searchParams.getAll("state_filter")).toEqual(["cancel"]);
    expect(next.searchParams.get("limit")).toBe("2");

    const pages = await allPages(`/v1/run/list?skill_id=${PRICE}&state_filter=cancel&limit=2`, key);
    expect(pages.flat()).toEqual(wanted.reverse());
  });

  it("pages with the default limit of 100 when none is given", async () => {
    const key = await freshOwner("default-pager");
    const created: string[] = [];
    for (let i = 0; i < 101; i++) {
      const run = await server.repos.runs.create({
        owner: "default-pager",
        skill: { id: PRICE, name: "Price check" },
        inputs: {},
      });
      created.push(run.id);
    }
    const pages = await allPages("/v1/run/list", key);
    expect(pages.map((p) => p.length)).toEqual([100, 1]);
    expect(pages.flat()).toEqual(created.reverse());
  });

  it("has no Link header on the last page", async () => {
    const key = await freshOwner("one-page");
    await startRun(PRICE, key);
    const reply = await get("/v1/run/list?limit=1", { key });
    expect(ids(reply)).toHaveLength(1);
    expect(reply.headers.get("link")).toBeNull();
  });
});

describe("paging runs accepted in the same millisecond", () => {
  const frozen = new Date("2026-11-22T10:00:00.000Z");
  let still: TestServer;

  beforeAll(async () => {
    still = await startTestServer({ clock: { now: () => frozen } });
  });

  afterAll(async () => {
    await still?.close();
  });

  it("orders them by id and pages through them without a miss or a repeat", async () => {
    const key = await still.keyFor("alice");
    await still.importSkills("alice", [skillRecord(PRICE, "Price check")]);
    const created: string[] = [];
    // More than one default page (100), all with the same created_at.
    for (let i = 0; i < 101; i++) {
      const run = await still.repos.runs.create({
        owner: "alice",
        skill: { id: PRICE, name: "Price check" },
        inputs: {},
      });
      expect(run.created_at).toBe(frozen.toISOString());
      created.push(run.id);
    }

    const pages: string[][] = [];
    let url: string | null = "/v1/run/list";
    while (url !== null && pages.length < 10) {
      const reply = await call(still.origin, "GET", url, { key });
      pages.push(ids(reply));
      url = nextLink(reply);
    }
    expect(pages.map((p) => p.length)).toEqual([100, 1]);
    expect(pages.flat()).toEqual([...created].sort().reverse());
  });
});

describe("cancelling a run", () => {
  it("ends a queued run at once: state cancel, end_time set", async () => {
    const run = await startRun(PRICE);
    const before = Date.now();
    const reply = await post(`/v1/run/${run.id}/cancel`);
    const after = Date.now();
    expect(reply.status).toBe(200);
    expect(reply.body).toBe("cancel");

    const ended = (await get(`/v1/run/${run.id}`)).body as RunSession;
    expect(ended.state).toBe("cancel");
    expect(ended.end_time).toMatch(TIMESTAMP);
    const endedAt = Date.parse(ended.end_time ?? "");
    expect(endedAt).toBeGreaterThanOrEqual(before);
    expect(endedAt).toBeLessThanOrEqual(after);
    expect(ended.start_time).toBe(run.start_time);
  });

  it("is idempotent: cancelling again answers cancel and keeps end_time", async () => {
    const run = await startRun(PRICE);
    await post(`/v1/run/${run.id}/cancel`);
    const first = (await get(`/v1/run/${run.id}`)).body as RunSession;

    // A minute later, by the server's clock: a second write of end_time would show.
    clockAheadMs = 60_000;
    let again: Reply;
    try {
      again = await post(`/v1/run/${run.id}/cancel`);
    } finally {
      clockAheadMs = 0;
    }
    expect(again.status).toBe(200);
    expect(again.body).toBe("cancel");
    const second = (await get(`/v1/run/${run.id}`)).body as RunSession;
    expect(second.end_time).toBe(first.end_time);
    expect(second).toEqual(first);
  });

  it("reports a terminal state a run already had instead of cancelling it", async () => {
    const run = await startRun(PRICE);
    // No worker yet: end the run as one would, straight in the database.
    await server.db.prisma.run.update({
      where: { id: run.id },
      data: { state: "finish", endTime: new Date() },
    });
    const reply = await post(`/v1/run/${run.id}/cancel`);
    expect(reply.status).toBe(200);
    expect(reply.body).toBe("finish");
    expect(((await get(`/v1/run/${run.id}`)).body as RunSession).state).toBe("finish");
  });
});

describe("a run's video", () => {
  it("is 404 Run has no video while the run has none", async () => {
    const run = await startRun(PRICE);
    const reply = await get(`/v1/run/${run.id}/video_url`);
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ detail: "Run has no video" });
  });
});

describe("`list` is never an id", () => {
  it("routes GET /v1/run/list to the list even though a run could be looked up by id", async () => {
    await startRun(PRICE);
    const reply = await get("/v1/run/list");
    expect(reply.status).toBe(200);
    expect(Array.isArray(reply.body)).toBe(true);
  });

  it("routes GET /v1/skill/list to the list even when a skill is named `list`", async () => {
    await server.importSkills("lists", [skillRecord("list", "A skill called list")]);
    const key = await server.keyFor("lists");
    const reply = await get("/v1/skill/list", { key });
    expect(reply.status).toBe(200);
    expect(Array.isArray(reply.body)).toBe(true);
    expect((reply.body as Skill[]).map((s) => s.id)).toEqual(["list"]);
  });
});

describe("skills", () => {
  it("lists the caller's skills by name, and no one else's", async () => {
    await server.importSkills("namer", [
      skillRecord("skill_c", "Gamma"),
      skillRecord("skill_a", "Beta"),
      skillRecord("skill_b", "Alpha"),
    ]);
    await server.importSkills("someone-else", [skillRecord("skill_x", "Aardvark")]);
    const key = await server.keyFor("namer");

    const reply = await get("/v1/skill/list", { key });
    expect(reply.status).toBe(200);
    const skills = reply.body as Skill[];
    expect(skills.map((s) => s.name)).toEqual(["Alpha", "Beta", "Gamma"]);
    expect(skills.every((s) => s.owner === "namer")).toBe(true);
  });

  it("returns one skill with its declared inputs", async () => {
    const reply = await get(`/v1/skill/${PRICE}`);
    expect(reply.status).toBe(200);
    const skill = reply.body as Skill;
    expect(skill).toMatchObject({ id: PRICE, name: "Price check", owner: "alice" });
    expect(skill.inputs).toEqual([
      { id: "in_url", json_key: "url", data_type: "string", required: false, default: "u" },
    ]);
    expect(skill.created_at).toMatch(TIMESTAMP);
  });
});

describe("request ids", () => {
  it("echoes the caller's X-Request-Id", async () => {
    const reply = await get("/v1/run/list", {
      key: alice,
      headers: { "x-request-id": "trace-7f3a.1:2" },
    });
    expect(reply.headers.get("x-request-id")).toBe("trace-7f3a.1:2");
  });

  it("echoes it on errors too", async () => {
    const reply = await get("/v1/run/list", { headers: { "x-request-id": "unauth-1" } });
    expect(reply.status).toBe(401);
    expect(reply.headers.get("x-request-id")).toBe("unauth-1");
  });

  it("generates a fresh one when the request has none", async () => {
    const first = (await get("/v1/run/list")).headers.get("x-request-id");
    const second = (await get("/v1/run/list")).headers.get("x-request-id");
    expect(first).toMatch(/^[\w.:-]{8,}$/);
    expect(second).toMatch(/^[\w.:-]{8,}$/);
    expect(first).not.toBe(second);
  });
});

describe("unauthenticated pages", () => {
  it("answers GET /healthz without a key", async () => {
    const reply = await get("/healthz", {});
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: "ok" });
  });

  it("serves the API reference at /docs as HTML", async () => {
    const reply = await get("/docs", {});
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toMatch(/^text\/html/);
    expect(reply.text).toMatch(/^<!doctype html>/i);
  });

  it("serves openapi.yaml, the contract the server enforces, at /openapi.yaml", async () => {
    const reply = await get("/openapi.yaml", {});
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toMatch(/yaml/);
    expect(reply.text).toBe(specText);
    expect(parse(reply.text)).toEqual(spec);
  });
});
