import { describe, expect, it } from "vitest";
import { json, refused, renderWithApi } from "../../test-support/api.js";
import { runEvent, runSession, step } from "../../test-support/fixtures.js";
import { button, click, find, render, waitFor } from "../../test-support/render.js";
import { LogPanel } from "./log-panel.js";
import { RerunOf } from "./rerun-of.js";

const events = [
  runEvent({ id: 1, type: "run_started" }),
  runEvent({ id: 2, type: "step_started", step: step("submit", "http") }),
  runEvent({ id: 3, type: "step_finished", step: step("submit", "http"), duration_ms: 40 }),
  runEvent({ id: 4, type: "step_started", step: step("rows #2 › check", "fail") }),
  runEvent({ id: 5, type: "log", step: step("rows #2 › check", "fail"), message: "checking" }),
  runEvent({ id: 6, type: "step_failed", step: step("rows #2 › check", "fail"), message: "no" }),
  runEvent({ id: 7, type: "run_failed" }),
];

/** The run's log panel signed in, the server answering `answer`. */
function logOf(state: "play" | "reset", answer: () => Response = () => json({})) {
  const log = { events, complete: state === "reset", error: null };
  return renderWithApi(
    <LogPanel run={runSession({ state })} log={log} parked={false} onSeek={undefined} />,
    answer,
  );
}

/** The buttons that rerun from a step, by their names (their text, part of it visually hidden). */
function rerunButtons(container: HTMLElement): string[] {
  return [...container.querySelectorAll("button")]
    .map((b) => b.textContent ?? "")
    .filter((name) => name.startsWith("Rerun from this step"));
}

describe("rerunning a run from a step of its log", () => {
  it("is offered on each step of an ended run, named for the step, and on none while it runs", async () => {
    const ended = await logOf("reset");
    expect(rerunButtons(ended.container)).toEqual([
      "Rerun from this step: submit",
      "Rerun from this step: rows #2 › check",
    ]);
    // Its text is short, to leave the row its width; the rest is read out and shown on hover.
    const first = button(ended.container, "Rerun from this step: submit");
    expect(first.title).toBe("Rerun from this step");
    expect(find(first, ".visually-hidden").textContent).toBe(" from this step: submit");
    const running = await logOf("play");
    expect(rerunButtons(running.container)).toEqual([]);
  });

  it("reruns from that step's label and opens the new run", async () => {
    const { container, calls, bodies } = await logOf("reset", () =>
      json(
        runSession({ id: "run_9", rerun_of: { run_id: "run_1", step: "rows #2 › check" } }),
        201,
      ),
    );
    await click(button(container, "Rerun from this step: rows #2 › check"));
    await waitFor(() => expect(window.location.pathname).toBe("/ui/runs/run_9"));
    expect(calls).toEqual(["POST /run/run_1/rerun"]);
    expect(bodies[0]).toEqual({ from_step: "rows #2 › check" });
  });

  it("shows the server's refusal under the step's row", async () => {
    const msg =
      "no checkpoint is kept before step rows #2 › check; this run can be rerun from: submit";
    const { container } = await logOf("reset", () =>
      refused([["body", "from_step"], `Value error, ${msg}`]),
    );
    const before = window.location.pathname;
    await click(button(container, "Rerun from this step: rows #2 › check"));
    const row = find(container, 'li[data-label="rows #2 › check"]');
    // In the server's words, without FastAPI's "Value error, ".
    await waitFor(() => expect(find(row, '[role="alert"]').textContent).toBe(msg));
    // Only that step's row says so, and the page stays.
    expect(container.querySelectorAll('[role="alert"]')).toHaveLength(1);
    expect(window.location.pathname).toBe(before);
  });

  it("shows a 409 as the server words it", async () => {
    const detail = "Run cannot be rerun until it has ended: it is running";
    const { container } = await logOf("reset", () => json({ detail }, 409));
    await click(button(container, "Rerun from this step: submit"));
    await waitFor(() => expect(find(container, '[role="alert"]').textContent).toBe(detail));
  });
});

describe("a rerun", () => {
  it("says which run it reruns, linked, and the step it started at", async () => {
    const { container } = await render(
      <RerunOf of={{ run_id: "run_0001", step: "rows #2 › check" }} />,
    );
    expect(container.textContent).toBe("Rerun of run_0001 from step rows #2 › check");
    expect(find(container, "a").getAttribute("href")).toBe("/ui/runs/run_0001");
  });
});
