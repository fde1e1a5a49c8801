import type { RunEvent, RunSession } from "@skillrun/client";
import { describe, expect, it } from "vitest";
import { eventStream, json, renderWithApi } from "../../test-support/api.js";
import { runEvent, runSession, step } from "../../test-support/fixtures.js";
import { find, waitFor } from "../../test-support/render.js";
import { RunPage } from "./run-page.js";

const claimed = runEvent({ id: 1, type: "run_claimed", data: { worker: "w1" } });
const askStarted = runEvent({ id: 2, type: "step_started", step: step("code", "ask") });
const asked = runEvent({
  id: 3,
  type: "run_paused",
  step: step("code", "ask"),
  data: { reason: "ask", prompt: "The code?", schema: { type: "string" }, expires_at: "x" },
});
const requested = runEvent({ id: 3, type: "run_paused", data: { reason: "requested" } });

/** The run page of `run`, whose step log so far is `events` (the run goes on). */
async function runPage(run: RunSession, events: RunEvent[]) {
  const rendered = await renderWithApi(<RunPage id={run.id} />, (request) => {
    const path = new URL(request.url).pathname;
    if (path.endsWith("/events/stream")) return eventStream(request, events);
    if (path.endsWith("/files")) return json([]);
    return json(run);
  });
  const { container } = rendered;
  // The run, then the log's rows, which arrive in one render once the stream has sent them.
  await waitFor(() => {
    find(container, ".facts .state");
    expect(container.querySelectorAll(".step-log li")).toHaveLength(events.length);
  });
  return rendered;
}

/** The state the page's facts show, in words. */
const stateShown = (container: HTMLElement) => find(container, ".facts .state").textContent;

describe("the run page of a paused run", () => {
  it("says a run paused at an ask waits for an answer, and shows the question", async () => {
    const { container } = await runPage(runSession({ state: "pause" }), [
      claimed,
      askStarted,
      asked,
    ]);
    expect(stateShown(container)).toBe("❚❚Waiting for an answer");
    expect(find(container, ".facts .state").dataset.state).toBe("pause");
    expect(find(container, ".ask .prompt").textContent).toBe("The code?");
    expect(container.querySelector(".facts .state-note")).toBeNull();
  });

  it("says Paused for a pause a client requested, and offers Resume", async () => {
    const { container } = await runPage(runSession({ state: "pause" }), [claimed, requested]);
    expect(stateShown(container)).toBe("❚❚Paused");
    expect(container.querySelector(".ask")).toBeNull();
    expect(
      [...container.querySelectorAll(".run-actions button")].map((b) => b.textContent),
    ).toEqual(["Cancel", "Resume", "Run again"]);
  });

  it("says Paused until its step log says why", async () => {
    const { container } = await runPage(runSession({ state: "pause" }), []);
    expect(stateShown(container)).toBe("❚❚Paused");
  });
});
