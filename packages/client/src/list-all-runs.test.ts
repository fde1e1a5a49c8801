import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSkillrunClient } from "./create-client.js";
import { ApiError } from "./errors.js";
import { listAllRuns } from "./list-all-runs.js";
import {
  clientFor,
  noopSkill,
  recordingFetch,
  startRun,
  startTestServer,
  sumSkill,
  type TestServer,
} from "./test-support/fixtures.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

describe("listAllRuns", () => {
  it("yields every run once, newest first, following the next links page by page", async () => {
    const recorder = recordingFetch();
    const client = await clientFor(server, "pager", { skills: [noopSkill], fetch: recorder.fetch });
    const created: string[] = [];
    for (let i = 0; i < 25; i++) created.push(await startRun(client, noopSkill.id));
    recorder.requests.length = 0;

    const runs = await collect(listAllRuns(client, { limit: 10 }));

    expect(runs.map((run) => run.id)).toEqual(created.toReversed());
    expect(new Set(runs.map((run) => run.id)).size).toBe(25);
    const pages = recorder.requests.map(({ url }) => url);
    expect(pages.map((url) => url.pathname)).toEqual([
      "/v1/run/list",
      "/v1/run/list",
      "/v1/run/list",
    ]);
    expect(pages.map((url) => url.searchParams.get("limit"))).toEqual(["10", "10", "10"]);
    const cursors = pages.map((url) => url.searchParams.get("cursor"));
    expect(cursors[0]).toBeNull();
    expect(cursors[1]).toEqual(expect.any(String));
    expect(cursors[2]).toEqual(expect.any(String));
    expect(cursors[2]).not.toBe(cursors[1]);
  });

  it("fetches pages only as far as the caller iterates", async () => {
    const recorder = recordingFetch();
    const client = await clientFor(server, "lazy", { skills: [noopSkill], fetch: recorder.fetch });
    for (let i = 0; i < 5; i++) await startRun(client, noopSkill.id);
    recorder.requests.length = 0;

    const taken: string[] = [];
    for await (const run of listAllRuns(client, { limit: 2 })) {
      taken.push(run.id);
      if (taken.length === 3) break;
    }

    expect(taken).toHaveLength(3);
    expect(recorder.requests).toHaveLength(2);
  });

  it("keeps the skill filter on every page", async () => {
    const recorder = recordingFetch();
    const client = await clientFor(server, "filter-skill", {
      skills: [noopSkill, sumSkill],
      fetch: recorder.fetch,
    });
    const sums: string[] = [];
    for (let i = 0; i < 7; i++) {
      await startRun(client, noopSkill.id);
      sums.push(await startRun(client, sumSkill.id, { a: i }));
    }
    recorder.requests.length = 0;

    const runs = await collect(listAllRuns(client, { skill_id: sumSkill.id, limit: 3 }));

    expect(runs.map((run) => run.id)).toEqual(sums.toReversed());
    expect(recorder.requests.map(({ url }) => url.searchParams.get("skill_id"))).toEqual([
      sumSkill.id,
      sumSkill.id,
      sumSkill.id,
    ]);
  });

  it("keeps the state filter on every page", async () => {
    const recorder = recordingFetch();
    const client = await clientFor(server, "filter-state", {
      skills: [noopSkill],
      fetch: recorder.fetch,
    });
    const cancelled: string[] = [];
    for (let i = 0; i < 9; i++) {
      const id = await startRun(client, noopSkill.id);
      if (i % 2 === 0) {
        await client.POST("/run/{id}/cancel", { params: { path: { id } } });
        cancelled.push(id);
      }
    }
    recorder.requests.length = 0;

    const runs = await collect(listAllRuns(client, { state_filter: ["cancel"], limit: 2 }));

    expect(runs.map((run) => run.id)).toEqual(cancelled.toReversed());
    expect(runs.every((run) => run.state === "cancel")).toBe(true);
    expect(
      recorder.requests.map(({ url }) => url.searchParams.getAll("state_filter").join()),
    ).toEqual(["cancel", "cancel", "cancel"]);
  });

  it("yields nothing for an owner without runs", async () => {
    const client = await clientFor(server, "empty");
    expect(await collect(listAllRuns(client))).toEqual([]);
  });

  it("throws an ApiError when a page is refused", async () => {
    const client = await clientFor(server, "refused");
    const error = await collect(listAllRuns(client, { limit: 0 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 422 });
  });

  it("takes the cursor from a relative next link among other links", async () => {
    const seen: URL[] = [];
    const pages: Record<string, { ids: string[]; link?: string }> = {
      "": { ids: ["run_3", "run_2"], link: '</v1/run/list?cursor=c2&limit=2>; rel="next last"' },
      c2: { ids: ["run_1"], link: '</v1/run/list?cursor=c0>; rel="prev"' },
    };
    const client = createSkillrunClient({
      baseUrl: "http://skillrun.invalid/v1",
      apiKey: "k",
      fetch: async (request) => {
        const url = new URL(request.url);
        seen.push(url);
        const page = pages[url.searchParams.get("cursor") ?? ""];
        if (!page) return Response.json({ detail: "no such page" }, { status: 500 });
        return Response.json(
          page.ids.map((id) => ({ id })),
          { headers: page.link ? { Link: `<https://a.b/x>; rel="self", ${page.link}` } : {} },
        );
      },
    });

    const runs = await collect(listAllRuns(client, { skill_id: "s", limit: 2 }));

    expect(runs.map((run) => run.id)).toEqual(["run_3", "run_2", "run_1"]);
    expect(seen.map((url) => url.search)).toEqual([
      "?skill_id=s&limit=2",
      "?skill_id=s&limit=2&cursor=c2",
    ]);
  });

  it("stops instead of looping when the server repeats a cursor", async () => {
    let calls = 0;
    const client = createSkillrunClient({
      baseUrl: "http://skillrun.invalid/v1",
      apiKey: "k",
      fetch: async () => {
        calls++;
        return Response.json([], { headers: { Link: '</v1/run/list?cursor=same>; rel="next"' } });
      },
    });

    await expect(collect(listAllRuns(client))).rejects.toThrow(
      "The run list returned the same cursor twice: same",
    );
    expect(calls).toBe(2);
  });
});
