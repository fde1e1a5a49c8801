import { describe, expect, it } from "vitest";
import { json, renderWithApi } from "../../test-support/api.js";
import { find, waitFor } from "../../test-support/render.js";
import { OverviewPage } from "./overview-page.js";

const summary = {
  since: "2026-12-07T00:00:00.000Z",
  until: "2026-12-08T00:00:00.000Z",
  by_state: { queued: 3, play: 1, pause: 0, finish: 20, reset: 4, cancel: 0, timeout: 1 },
  failures_by_skill: [
    { skill_id: "skill_b", failed: 3, timed_out: 1 },
    { skill_id: "skill_a", failed: 1, timed_out: 0 },
  ],
  queue_depth: 5,
};

describe("the overview", () => {
  it("shows the runs by state as bars and a table, the failing skills and the queue", async () => {
    const { container, calls } = await renderWithApi(<OverviewPage />, () => json(summary));
    await waitFor(() =>
      expect(find(container, '.by-state tr[data-state="finish"]').textContent).toBe("Finished20"),
    );
    expect(calls).toEqual(["GET /run/summary"]);
    const facts = [...container.querySelectorAll(".facts > div")].map((fact) => fact.textContent);
    expect(facts).toEqual(["Queued now5", "Started in 24 h29", "Failed or timed out5"]);
    // The longest bar is the most runs; the others in proportion.
    const width = (state: string) =>
      Number(find(container, `.state-bars g[data-state="${state}"] rect`).getAttribute("width"));
    expect(width("finish")).toBe(354);
    expect(width("reset")).toBe(Math.round((4 / 20) * 354));
    expect(width("pause")).toBe(0);
    expect(
      [...container.querySelectorAll(".failing tr[data-skill]")].map((row) => row.textContent),
    ).toEqual(["skill_b31", "skill_a10"]);
  });

  it("holds every place while the figures load, so nothing moves when they come", async () => {
    const { container } = await renderWithApi(<OverviewPage />, () => new Promise(() => {}));
    expect(container.querySelectorAll(".by-state tbody tr")).toHaveLength(7);
    expect(find(container, ".state-bars").getAttribute("height")).toBe(String(7 * 28));
    expect(find(container, "section").getAttribute("aria-busy")).toBe("true");
  });

  it("says when no run failed", async () => {
    const calm = { ...summary, failures_by_skill: [] };
    const { container } = await renderWithApi(<OverviewPage />, () => json(calm));
    await waitFor(() =>
      expect(container.textContent).toContain("No run failed or timed out in the last 24 hours."),
    );
  });
});
