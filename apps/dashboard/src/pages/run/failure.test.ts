import { describe, expect, it } from "vitest";
import { runEvent, runSession, step } from "../../test-support/fixtures.js";
import { failureOf, offsetOfStep } from "./failure.js";

describe("a run's failure", () => {
  const error = { step: "step 2 (fail)", message: "the report is too short" };

  it("is read from its data when it failed or timed out", () => {
    expect(failureOf(runSession({ state: "reset", data: { error } }))).toEqual(error);
    expect(failureOf(runSession({ state: "timeout", data: { error: {} } }))).toEqual({
      step: null,
      message: "",
    });
  });

  it("is none for a run in any other state, even with an error in its data", () => {
    expect(failureOf(runSession({ state: "finish", data: { error } }))).toBeNull();
    expect(failureOf(runSession({ state: "reset", data: {} }))).toBeNull();
  });

  it("is found in the video at the last offset logged for its step", () => {
    const events = [
      runEvent({ id: 1, type: "step_started", step: step("step 2 (fail)"), video_offset_ms: 1000 }),
      runEvent({ id: 2, type: "step_failed", step: step("step 2 (fail)"), video_offset_ms: 1500 }),
      runEvent({ id: 3, type: "run_failed", video_offset_ms: 1700 }),
    ];
    expect(offsetOfStep(events, "step 2 (fail)")).toBe(1500);
    expect(offsetOfStep(events, "step 9")).toBeNull();
    expect(offsetOfStep(events, null)).toBeNull();
  });

  it("is found in the video only among the events since the run's latest claim", () => {
    const events = [
      runEvent({ id: 1, type: "run_claimed" }),
      runEvent({ id: 2, type: "step_started", step: step("step 2 (fail)"), video_offset_ms: 331 }),
      runEvent({ id: 3, type: "run_parked" }),
      runEvent({ id: 4, type: "run_claimed" }),
      runEvent({ id: 5, type: "step_started", step: step("step 2 (fail)"), video_offset_ms: 40 }),
    ];
    expect(offsetOfStep(events, "step 2 (fail)")).toBe(40);
    // Failed in the second claim before its browser showed a page: the 331 ms of the first
    // claim's video is not a place in the video shown.
    events[4] = runEvent({ id: 5, type: "step_failed", step: step("step 2 (fail)") });
    expect(offsetOfStep(events, "step 2 (fail)")).toBeNull();
  });
});
