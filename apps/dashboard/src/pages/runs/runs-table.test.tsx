import { describe, expect, it } from "vitest";
import { json, renderWithApi } from "../../test-support/api.js";
import { runEvent, runSession } from "../../test-support/fixtures.js";
import { find, waitFor } from "../../test-support/render.js";
import { RunsTable } from "./runs-table.js";

const runs = [
  runSession({ id: "run_q", state: null, name: null, skill_id: "skill_wait" }),
  runSession({ id: "run_p", state: "play", name: "Wait a long time" }),
  runSession({ id: "run_f", state: "finish", end_time: "2026-01-01T00:00:02.500Z" }),
];

describe("the runs table", () => {
  it("links each run by its name, or its skill when it has none", async () => {
    const { container } = await renderWithApi(<RunsTable runs={runs} filtered={false} />, () =>
      json({}),
    );
    const link = find<HTMLAnchorElement>(container, 'tr[data-run="run_q"] a');
    expect(link.textContent).toBe("skill_wait");
    expect(link.getAttribute("href")).toBe("/ui/runs/run_q");
  });

  it("offers Cancel, named for the run, only on runs that have not ended", async () => {
    const { container } = await renderWithApi(<RunsTable runs={runs} filtered={false} />, () =>
      json({}),
    );
    const cancels = [...container.querySelectorAll("button")].map((b) =>
      b.getAttribute("aria-label"),
    );
    expect(cancels).toEqual(["Cancel skill_wait", "Cancel Wait a long time"]);
  });

  it("gives a queued run no duration and an ended one its length", async () => {
    const { container } = await renderWithApi(<RunsTable runs={runs} filtered={false} />, () =>
      json({}),
    );
    const duration = (id: string) =>
      find(container, `tr[data-run="${id}"] td:nth-child(4)`).textContent;
    expect(duration("run_q")).toBe("—");
    expect(duration("run_f")).toBe("2.5 s");
  });

  it("says which paused runs wait for an answer, from their step logs, reading only those", async () => {
    const asking = runSession({ id: "run_a", state: "pause" });
    const held = runSession({ id: "run_h", state: "pause" });
    const { container, calls } = await renderWithApi(
      <RunsTable runs={[asking, held, ...runs]} filtered={false} />,
      (request) => {
        const path = new URL(request.url).pathname;
        if (path === "/v1/run/run_a/events") {
          return json([
            runEvent({ id: 1, type: "run_claimed", run_id: "run_a" }),
            runEvent({ id: 2, type: "run_paused", run_id: "run_a", data: { reason: "ask" } }),
          ]);
        }
        if (path === "/v1/run/run_h/events") {
          return json([
            runEvent({ id: 3, type: "run_paused", run_id: "run_h", data: { reason: "ask" } }),
            runEvent({ id: 4, type: "run_resumed", run_id: "run_h" }),
            runEvent({ id: 5, type: "run_paused", run_id: "run_h", data: { reason: "requested" } }),
          ]);
        }
        return json({});
      },
    );
    const state = (id: string) => find(container, `tr[data-run="${id}"] .state`);
    await waitFor(() => expect(state("run_a").textContent).toBe("?Waiting for an answer"));
    expect(state("run_a").className).toBe("state state-ask");
    expect(state("run_h").textContent).toBe("❚❚Paused");
    expect(state("run_h").className).toBe("state state-pause");
    expect(calls.filter((call) => call.includes("/events")).sort()).toEqual([
      "GET /run/run_a/events?limit=1000",
      "GET /run/run_h/events?limit=1000",
    ]);
  });

  it("says in its caption when the list is filtered", async () => {
    const { container } = await renderWithApi(<RunsTable runs={runs} filtered />, () => json({}));
    expect(find(container, "caption").textContent).toBe("Runs, newest first, filtered");
  });
});
