import type { RunEvent, RunSession } from "@skillrun/client";
import { describe, expect, it } from "vitest";
import { json, renderWithApi, runAnswers } from "../../test-support/api.js";
import { runEvent, runSession, step } from "../../test-support/fixtures.js";
import { button, click, find, waitFor } from "../../test-support/render.js";
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

/**
 * The run page of `run`, whose step log so far is `events` (the run goes on), shown in `rows`
 * rows (one an event unless said: a step's start and end share one).
 */
async function runPage(run: RunSession, events: RunEvent[], rows = events.length) {
  const rendered = await renderWithApi(<RunPage id={run.id} />, (request) => {
    const path = new URL(request.url).pathname;
    if (path.endsWith("/files")) return json([]);
    return runAnswers(request, events) ?? json(run);
  });
  const { container } = rendered;
  // The run, then the log's rows, which arrive in one render once the stream has sent them.
  await waitFor(() => {
    find(container, ".facts .state");
    expect(container.querySelectorAll(".step-log li")).toHaveLength(rows);
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
    expect(stateShown(container)).toBe("?Waiting for an answer");
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
    expect(stateShown(container)).toBe("?Waiting for an answer");
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

/** A step's start at `offsetMs` in the video of its claim, and its end 200 ms later. */
const stepAt = (id: number, label: string, offsetMs: number) => [
  runEvent({ id, type: "step_started", step: step(label), video_offset_ms: offsetMs }),
  runEvent({
    id: id + 1,
    type: "step_finished",
    step: step(label),
    duration_ms: 200,
    video_offset_ms: offsetMs + 200,
  }),
];
const failedRun = runSession({
  state: "reset",
  video_url: "/v1/videos/run_1.webm",
  data: { error: { step: "step 3", message: "no such button" } },
});
/** The labels of the log's rows that move the video. */
const seekable = (container: HTMLElement) =>
  [...container.querySelectorAll(".step-log button.step-seek")].map(
    (seek) => seek.closest("li")?.dataset.label,
  );
const videoTime = (container: HTMLElement) =>
  find<HTMLVideoElement>(container, "video").currentTime;

describe("the run page's video", () => {
  it("moves the video to each step of a run claimed once, and to its failed step", async () => {
    const { container } = await runPage(
      failedRun,
      [
        claimed,
        ...stepAt(2, "step 1", 0),
        ...stepAt(4, "step 2", 900),
        runEvent({ id: 6, type: "step_started", step: step("step 3"), video_offset_ms: 1500 }),
        runEvent({ id: 7, type: "step_failed", step: step("step 3"), video_offset_ms: 1700 }),
        runEvent({ id: 8, type: "run_failed" }),
      ],
      5,
    );
    expect(seekable(container)).toEqual(["step 1", "step 2", "step 3"]);
    await click(find(container, 'li[data-label="step 2"] button.step-seek'));
    expect(videoTime(container)).toBe(0.9);
    expect(find(container, ".video-panel [role=status]").textContent).toBe(
      "Video moved to 900 ms: step 2",
    );
    await click(button(container, "Show the failed step in the video"));
    expect(videoTime(container)).toBe(1.7);
    expect(container.querySelector(".step-note")).toBeNull();
  });

  it("moves the video only to the steps after a run's latest claim, whose video it is", async () => {
    // Parked in a wait, then taken again: the first claim's video is set aside on the server and
    // the page shows the second's, 0.5 s long; step 1 at 331 ms is not in it.
    const events = [
      claimed,
      ...stepAt(2, "step 1", 331),
      runEvent({ id: 4, type: "step_started", step: step("nap"), video_offset_ms: 531 }),
      runEvent({ id: 5, type: "run_parked", data: { wake_at: "2026-01-01T00:01:00Z" } }),
      runEvent({ id: 6, type: "run_claimed", data: { worker: "w2", parked: true } }),
      ...stepAt(7, "nap", 0),
      runEvent({ id: 9, type: "step_started", step: step("step 3"), video_offset_ms: 250 }),
      runEvent({ id: 10, type: "step_failed", step: step("step 3"), video_offset_ms: 450 }),
      runEvent({ id: 11, type: "run_failed" }),
    ];
    const { container } = await runPage(failedRun, events, 8);
    expect(seekable(container)).toEqual(["nap", "step 3"]);
    expect(container.querySelector('li[data-label="step 1"] button.step-seek')).toBeNull();
    // The first claim's row of the nap, which the park interrupted, moves nothing either.
    expect(container.querySelectorAll('li[data-label="nap"] button.step-seek')).toHaveLength(1);
    await click(find(container, 'li[data-label="step 3"] button.step-seek'));
    expect(videoTime(container)).toBe(0.25);
    await click(button(container, "Show the failed step in the video"));
    expect(videoTime(container)).toBe(0.45);
    // The second claim's row says the video begins there.
    const notes = [...container.querySelectorAll(".step-log .step-note")];
    expect(notes.map((note) => note.textContent)).toEqual([
      "The video shows the run from here on: the steps above were recorded in an earlier video, which is not shown.",
    ]);
    expect(notes[0]?.closest("li")?.querySelector(".step-label")?.textContent).toBe(
      "Taken by a worker",
    );
  });

  it("offers no failed step in the video when only an earlier claim's video shows it", async () => {
    // Its worker put it back in the queue; the next failed step 3 before its browser showed a
    // page, so the only offset of step 3 is the first claim's.
    const { container } = await runPage(
      failedRun,
      [
        claimed,
        runEvent({ id: 2, type: "step_started", step: step("step 3"), video_offset_ms: 331 }),
        runEvent({ id: 3, type: "run_released" }),
        runEvent({ id: 4, type: "run_claimed", data: { worker: "w2" } }),
        runEvent({ id: 5, type: "step_started", step: step("step 3") }),
        runEvent({ id: 6, type: "step_failed", step: step("step 3"), message: "no such button" }),
        runEvent({ id: 7, type: "run_failed" }),
      ],
      6,
    );
    expect(find(container, ".failure h2").textContent).toBe("Failed at step 3");
    expect(container.querySelector(".failure button")).toBeNull();
    expect(seekable(container)).toEqual([]);
  });
});
