import { describe, expect, it } from "vitest";
import { runEvent, step } from "../../test-support/fixtures.js";
import { logRows } from "./log-rows.js";

describe("the step log's rows", () => {
  it("joins a step's start and end into one row with its duration and the start's video offset", () => {
    const rows = logRows([
      runEvent({ id: 1, type: "step_started", step: step("step 1"), video_offset_ms: 400 }),
      runEvent({
        id: 2,
        type: "step_finished",
        step: step("step 1"),
        duration_ms: 1200,
        video_offset_ms: 1600,
        detail: "2s",
      }),
    ]);
    expect(rows).toEqual([
      {
        key: "e1",
        depth: 0,
        label: "step 1",
        status: "done",
        text: "wait",
        detail: "2s",
        file: null,
        durationMs: 1200,
        offsetMs: 400,
        videoStart: false,
      },
    ]);
  });

  it("shows a step still going as running, and a failed one with its message", () => {
    const rows = logRows([
      runEvent({ id: 1, type: "step_started", step: step("step 1") }),
      runEvent({ id: 2, type: "step_started", step: step("step 2") }),
      runEvent({ id: 3, type: "step_failed", step: step("step 2"), message: "no such button" }),
    ]);
    expect(rows.map((row) => [row.label, row.status, row.text])).toEqual([
      ["step 1", "running", "wait"],
      ["step 2", "failed", "no such button"],
    ]);
  });

  it("gives each attempt of a retried step its own row", () => {
    const rows = logRows([
      runEvent({ id: 1, type: "step_started", step: step("step 1"), attempt: 1 }),
      runEvent({
        id: 2,
        type: "step_failed",
        step: step("step 1"),
        attempt: 1,
        message: "timeout",
      }),
      runEvent({ id: 3, type: "step_started", step: step("step 1"), attempt: 2 }),
      runEvent({ id: 4, type: "step_finished", step: step("step 1"), attempt: 2 }),
    ]);
    expect(rows.map((row) => row.status)).toEqual(["failed", "done"]);
  });

  it("takes the video offset of a step's end when its start had none", () => {
    const rows = logRows([
      runEvent({ id: 1, type: "step_started", step: step("step 1") }),
      runEvent({ id: 2, type: "step_finished", step: step("step 1"), video_offset_ms: 900 }),
    ]);
    expect(rows[0]?.offsetMs).toBe(900);
  });

  it("nests steps by their label's › and log lines one level under their step", () => {
    const rows = logRows([
      runEvent({ id: 1, type: "step_started", step: step("rounds", "for_each") }),
      runEvent({ id: 2, type: "step_started", step: step("rounds #1 › say", "log") }),
      runEvent({
        id: 3,
        type: "log",
        step: step("rounds #1 › say", "log"),
        level: "info",
        message: "round 1",
      }),
    ]);
    expect(rows.map((row) => [row.label, row.depth])).toEqual([
      ["rounds", 0],
      ["rounds #1 › say", 1],
      ["info", 2],
    ]);
  });

  it("leaves the kind out when the label already says it", () => {
    const [row] = logRows([
      runEvent({ id: 1, type: "step_started", step: step("step 2 (fill)", "fill") }),
    ]);
    expect(row?.text).toBe("");
  });

  it("says a skipped step's reason, and the run's own events in words, without data updates", () => {
    const rows = logRows([
      runEvent({ id: 1, type: "run_claimed" }),
      runEvent({ id: 2, type: "step_skipped", step: step("step 1") }),
      runEvent({ id: 3, type: "data_updated", step: step("step 1") }),
      runEvent({ id: 4, type: "run_parked", message: "parked until its wait ends" }),
      runEvent({ id: 5, type: "run_finished", duration_ms: 3000, video_offset_ms: 5 }),
    ]);
    expect(rows.map((row) => [row.status, row.label, row.text, row.offsetMs])).toEqual([
      ["run", "Taken by a worker", "", null],
      ["skipped", "step 1", "its condition was false", null],
      ["run", "Parked", "parked until its wait ends", null],
      ["run", "Finished", "", null],
    ]);
  });

  it("keeps the video offsets only from the run's latest claim on, whose row says the video begins there", () => {
    // Parked, then taken again: the second claim recorded the video the page shows.
    const rows = logRows([
      runEvent({ id: 1, type: "run_claimed" }),
      runEvent({ id: 2, type: "step_started", step: step("open"), video_offset_ms: 0 }),
      runEvent({ id: 3, type: "step_finished", step: step("open"), video_offset_ms: 300 }),
      runEvent({ id: 4, type: "step_started", step: step("code"), video_offset_ms: 331 }),
      runEvent({ id: 5, type: "run_parked" }),
      runEvent({ id: 6, type: "run_claimed" }),
      // The step begun before the claim ends after it: its row still points at no video.
      runEvent({ id: 7, type: "step_finished", step: step("code"), video_offset_ms: 20 }),
      runEvent({ id: 8, type: "step_started", step: step("send"), video_offset_ms: 120 }),
      runEvent({ id: 9, type: "step_finished", step: step("send"), video_offset_ms: 480 }),
    ]);
    expect(rows.map((row) => [row.label, row.offsetMs, row.videoStart])).toEqual([
      ["Taken by a worker", null, false],
      ["open", null, false],
      ["code", null, false],
      ["Parked", null, false],
      ["Taken by a worker", null, true],
      ["send", 120, false],
    ]);
  });

  it("says nothing of where the video begins for a run claimed once, or when no earlier claim was recorded", () => {
    const once = logRows([
      runEvent({ id: 1, type: "run_claimed" }),
      runEvent({ id: 2, type: "step_started", step: step("open"), video_offset_ms: 0 }),
    ]);
    expect(once.map((row) => [row.offsetMs, row.videoStart])).toEqual([
      [null, false],
      [0, false],
    ]);
    // A worker lost before its browser opened: the first claim has nothing in any video.
    const lost = logRows([
      runEvent({ id: 1, type: "run_claimed" }),
      runEvent({ id: 2, type: "step_started", step: step("fetch", "http") }),
      runEvent({ id: 3, type: "worker_lost" }),
      runEvent({ id: 4, type: "run_claimed" }),
      runEvent({ id: 5, type: "step_started", step: step("open"), video_offset_ms: 0 }),
    ]);
    expect(lost.map((row) => row.videoStart)).toEqual([false, false, false, false, false]);
    expect(lost.at(-1)?.offsetMs).toBe(0);
  });
});
