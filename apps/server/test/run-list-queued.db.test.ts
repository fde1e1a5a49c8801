import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunSession } from "../src/domain/api-types.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call, type Reply, skillRecord } from "./support/http.js";

/**
 * `GET /v1/run/list?state_filter=queued` (docs/api.md "Listing runs"): the runs waiting for a
 * worker, alone or with other states, paged like any filter.
 */

let server: TestServer;
let key: string;
const PRICE = "skill_price_check";
const NOTIFY = "skill_notify";

/** The owner's runs, oldest first, named for the state each is left in. */
const runs: Record<"playing" | "queuedPrice" | "cancelled" | "queuedNotify", RunSession> =
  {} as never;

beforeAll(async () => {
  server = await startTestServer();
  key = await server.keyFor("queuer");
  await server.importSkills("queuer", [
    skillRecord(PRICE, "Price check"),
    skillRecord(NOTIFY, "Notify"),
  ]);
  for (const [name, skill] of [
    ["playing", PRICE],
    ["queuedPrice", PRICE],
    ["cancelled", NOTIFY],
    ["queuedNotify", NOTIFY],
  ] as const) {
    const reply = await call(server.origin, "POST", "/v1/run/", { key, json: { skill_id: skill } });
    expect(reply.status, reply.text).toBe(200);
    runs[name] = reply.body as RunSession;
  }
  // The oldest queued run of the (otherwise empty) server is the one a worker claims.
  const claimed = await server.repos.runExecution.claim("test-worker", 60_000);
  expect(claimed?.id).toBe(runs.playing.id);
  const cancel = await call(server.origin, "POST", `/v1/run/${runs.cancelled.id}/cancel`, { key });
  expect(cancel.body).toBe("cancel");
});

afterAll(async () => {
  await server?.close();
});

async function list(query: string): Promise<Reply> {
  const reply = await call(server.origin, "GET", `/v1/run/list${query}`, { key });
  expect(reply.status, reply.text).toBe(200);
  return reply;
}

async function idsOf(query: string): Promise<string[]> {
  return ((await list(query)).body as RunSession[]).map((run) => run.id);
}

describe("listing queued runs", () => {
  it("lists the runs waiting for a worker with state_filter=queued, newest first", async () => {
    const reply = await list("?state_filter=queued");
    expect((reply.body as RunSession[]).map((run) => run.id)).toEqual([
      runs.queuedNotify.id,
      runs.queuedPrice.id,
    ]);
    expect((reply.body as RunSession[]).every((run) => run.state === null)).toBe(true);
  });

  it("combines queued with other states, and with skill_id", async () => {
    expect(await idsOf("?state_filter=queued&state_filter=play")).toEqual([
      runs.queuedNotify.id,
      runs.queuedPrice.id,
      runs.playing.id,
    ]);
    expect(await idsOf("?state_filter=cancel&state_filter=queued")).toEqual([
      runs.queuedNotify.id,
      runs.cancelled.id,
      runs.queuedPrice.id,
    ]);
    expect(await idsOf(`?state_filter=queued&skill_id=${PRICE}`)).toEqual([runs.queuedPrice.id]);
    expect(await idsOf(`?state_filter=queued&state_filter=play&skill_id=${PRICE}`)).toEqual([
      runs.queuedPrice.id,
      runs.playing.id,
    ]);
    // The origin's values mean what they meant: no queued run among them.
    expect(await idsOf("?state_filter=play&state_filter=cancel")).toEqual([
      runs.cancelled.id,
      runs.playing.id,
    ]);
  });

  it("pages through queued runs, keeping the filter in the Link", async () => {
    const pages: string[][] = [];
    let query: string | null = "?state_filter=queued&state_filter=play&limit=1";
    while (query !== null) {
      const reply = await list(query);
      pages.push((reply.body as RunSession[]).map((run) => run.id));
      const link = reply.headers.get("link");
      if (link === null) break;
      const next = new URL(/^<([^>]+)>; rel="next"$/.exec(link)?.[1] ?? "");
      expect(next.searchParams.getAll("state_filter")).toEqual(["queued", "play"]);
      query = next.search;
      if (pages.length > 10) throw new Error("the Link headers never end");
    }
    expect(pages).toEqual([[runs.queuedNotify.id], [runs.queuedPrice.id], [runs.playing.id]]);
  });

  it("shows another owner none of them", async () => {
    const other = await server.keyFor("someone-else");
    const reply = await call(server.origin, "GET", "/v1/run/list?state_filter=queued", {
      key: other,
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([]);
  });
});
