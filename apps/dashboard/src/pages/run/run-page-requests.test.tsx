import type { RunEvent } from "@skillrun/client";
import { act } from "react";
import { describe, expect, it } from "vitest";
import { REFRESH_MS } from "../../live/run-events.js";
import { json, renderWithApi, runAnswers } from "../../test-support/api.js";
import { runEvent, runSession, step } from "../../test-support/fixtures.js";
import { find, waitFor } from "../../test-support/render.js";
import { RunPage } from "./run-page.js";

/** A run's log of `steps` steps, each started and finished (two events each), ids from `first`. */
function steps(count: number, first: number): RunEvent[] {
  return Array.from({ length: count }, (_, n) => [
    runEvent({ id: first + 2 * n, type: "step_started", step: step(`wait ${n + 1}`) }),
    runEvent({
      id: first + 2 * n + 1,
      type: "step_finished",
      step: step(`wait ${n + 1}`),
      duration_ms: 10,
    }),
  ]).flat();
}

const claimed = runEvent({ id: 1, type: "run_claimed", data: { worker: "w1" } });

/** The requests of the page for the run itself (not its events or files). */
const runReads = (calls: string[]) => calls.filter((call) => call === "GET /run/run_1");
const liveLine = (container: HTMLElement) => find(container, ".log-panel [aria-live]").textContent;

describe("the run page's requests", () => {
  it("reads a finished run's whole log in one request, and the run once", async () => {
    const log = [
      claimed,
      ...steps(90, 2),
      runEvent({ id: 182, type: "run_finished", data: { state: "finish" } }),
    ];
    const { container, calls } = await renderWithApi(<RunPage id="run_1" />, (request) => {
      if (new URL(request.url).pathname.endsWith("/files")) return json([]);
      return (
        runAnswers(request, log) ??
        json(runSession({ state: "finish", end_time: "2026-01-01T00:00:09Z" }))
      );
    });
    await waitFor(() => {
      expect(liveLine(container)).toBe("The run has ended; this is its whole log.");
    });
    expect(container.querySelectorAll(".step-log li")).toHaveLength(92);
    // A moment more, for any refetch the replay would have set off.
    await act(() => new Promise((resolve) => setTimeout(resolve, REFRESH_MS + 100)));
    expect(calls.filter((call) => call.includes("/events"))).toEqual([
      "GET /run/run_1/events?limit=1000",
    ]);
    expect(runReads(calls)).toHaveLength(1);
  });

  it("reads a long log page after page, then follows the run from its last event", async () => {
    const log = [claimed, ...steps(3, 2)];
    const { container, calls } = await renderWithApi(<RunPage id="run_1" />, (request) => {
      const url = new URL(request.url);
      if (url.pathname.endsWith("/files")) return json([]);
      if (url.pathname.endsWith("/events")) {
        // Two pages: the first says where the next starts.
        return url.searchParams.get("cursor") === "c2"
          ? json(log.slice(4))
          : json(log.slice(0, 4), 200, { Link: '</v1/run/run_1/events?cursor=c2>; rel="next"' });
      }
      return runAnswers(request, log) ?? json(runSession({ state: "play" }));
    });
    await waitFor(() => {
      expect(container.querySelectorAll(".step-log li")).toHaveLength(4);
    });
    expect(calls.filter((call) => call.includes("/events"))).toEqual([
      "GET /run/run_1/events?limit=1000",
      "GET /run/run_1/events?limit=1000&cursor=c2",
      "GET /run/run_1/events/stream",
    ]);
    expect(liveLine(container)).toBe("Live: steps appear as they run.");
  });

  it("reads the run again once for a burst of events of a live run, not once an event", async () => {
    const { container, calls } = await renderWithApi(<RunPage id="run_1" />, (request) => {
      if (new URL(request.url).pathname.endsWith("/files")) return json([]);
      return runAnswers(request, [claimed], steps(90, 2)) ?? json(runSession({ state: "play" }));
    });
    await waitFor(() => {
      expect(container.querySelectorAll(".step-log li")).toHaveLength(91);
    });
    await act(() => new Promise((resolve) => setTimeout(resolve, REFRESH_MS + 200)));
    // The first read, and one after the burst's 90 finished steps.
    expect(runReads(calls)).toHaveLength(2);
  });
});
