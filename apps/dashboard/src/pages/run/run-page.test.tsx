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

/** The run's `run_parked` event, waking (or expiring) at `wakeAt`. */
const parkedAt = (id: number, wakeAt: string) =>
  runEvent({ id, type: "run_parked", data: { wake_at: wakeAt } });
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

/** The line under the state saying the run is parked; null when there is none. */
const parkedNote = (container: HTMLElement) =>
  container.querySelector(".facts .state-note")?.textContent ?? null;
const liveLine = (container: HTMLElement) => find(container, ".log-panel [aria-live]").textContent;
const videoLine = (container: HTMLElement) => find(container, ".video-placeholder").textContent;
const NO_BROWSER =
  "Parked: no browser is open for this run while it waits. A run that opens a browser has its video here once it ends.";

describe("the run page of a parked run", () => {
  it("says a parked ask holds no worker until answered, and still takes the answer", async () => {
    const { container } = await runPage(runSession({ state: "pause" }), [
      claimed,
      askStarted,
      asked,
      parkedAt(4, inAnHour()),
    ]);
    expect(stateShown(container)).toBe("❚❚Waiting for an answer");
    expect(parkedNote(container)).toBe("Parked: holds no worker until answered");
    expect(find(container, ".ask .prompt").textContent).toBe("The code?");
    // Its browser is closed: neither the video nor the log says a run is under way.
    expect(videoLine(container)).toBe(NO_BROWSER);
    expect(liveLine(container)).toBe(
      "Live: the run is parked; its steps appear here once it goes on.",
    );
  });

  it("says a parked requested pause holds no worker until resumed, and offers Resume", async () => {
    const { container } = await runPage(runSession({ state: "pause" }), [
      claimed,
      requested,
      parkedAt(4, inAnHour()),
    ]);
    expect(stateShown(container)).toBe("❚❚Paused");
    expect(parkedNote(container)).toBe("Parked: holds no worker until resumed");
    expect(videoLine(container)).toBe(NO_BROWSER);
    expect(
      [...container.querySelectorAll(".run-actions button")].map((b) => b.textContent),
    ).toEqual(["Cancel", "Resume", "Run again"]);
  });

  it("says an answered parked run goes on when a worker takes it", async () => {
    // Answered: in play again, but no worker has taken it yet.
    const events = [claimed, askStarted, asked, parkedAt(4, inAnHour())];
    const { container } = await runPage(runSession({ state: "play" }), events);
    expect(stateShown(container)).toBe("▶Running");
    expect(parkedNote(container)).toBe("Parked: answered; it goes on when a worker takes it");
    expect(container.querySelector(".ask")).toBeNull();
  });

  it("says until when a parked wait waits, in local time", async () => {
    const wakeAt = inAnHour();
    const { container } = await runPage(runSession({ state: "play" }), [
      claimed,
      runEvent({ id: 2, type: "step_started", step: step("nap") }),
      parkedAt(3, wakeAt),
    ]);
    expect(stateShown(container)).toBe("▶Running");
    const local = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeStyle: "medium" });
    expect(parkedNote(container)).toBe(`Parked until ${local.format(new Date(wakeAt))}`);
    expect(find(container, ".state-note time").getAttribute("datetime")).toBe(wakeAt);
    expect(videoLine(container)).toBe(NO_BROWSER);
  });

  it("says a parked wait that has ended goes on when a worker takes it", async () => {
    const { container } = await runPage(runSession({ state: "play" }), [
      claimed,
      runEvent({ id: 2, type: "step_started", step: step("nap") }),
      parkedAt(3, new Date(Date.now() - 1_000).toISOString()),
    ]);
    expect(parkedNote(container)).toBe(
      "Parked: its wait has ended; it goes on when a worker takes it",
    );
  });

  it("says nothing of parking once a worker took the run again, or once it ended", async () => {
    const woken = await runPage(runSession({ state: "play" }), [
      claimed,
      requested,
      parkedAt(4, inAnHour()),
      runEvent({ id: 5, type: "run_claimed", data: { worker: "w2", parked: true } }),
      runEvent({ id: 6, type: "run_resumed" }),
    ]);
    expect(parkedNote(woken.container)).toBeNull();
    expect(videoLine(woken.container)).toBe(
      "A run that opens a browser has its video here once it ends.",
    );
    expect(liveLine(woken.container)).toBe("Live: steps appear as they run.");

    const cancelled = await runPage(runSession({ state: "cancel" }), [
      claimed,
      requested,
      parkedAt(4, inAnHour()),
      runEvent({ id: 5, type: "run_cancelled" }),
    ]);
    expect(stateShown(cancelled.container)).toBe("⊘Cancelled");
    expect(parkedNote(cancelled.container)).toBeNull();
  });
});
