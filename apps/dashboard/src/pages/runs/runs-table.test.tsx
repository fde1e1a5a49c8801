import { describe, expect, it } from "vitest";
import { json, renderWithApi } from "../../test-support/api.js";
import { runSession } from "../../test-support/fixtures.js";
import { find } from "../../test-support/render.js";
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

  it("says Paused for every paused run: why it waits is in its step log, not in the list", async () => {
    const paused = runSession({ id: "run_a", state: "pause" });
    const { container } = await renderWithApi(<RunsTable runs={[paused]} filtered={false} />, () =>
      json({}),
    );
    expect(find(container, 'tr[data-run="run_a"] .state').textContent).toBe("❚❚Paused");
  });

  it("says in its caption when the list is filtered", async () => {
    const { container } = await renderWithApi(<RunsTable runs={runs} filtered />, () => json({}));
    expect(find(container, "caption").textContent).toBe("Runs, newest first, filtered");
  });
});
