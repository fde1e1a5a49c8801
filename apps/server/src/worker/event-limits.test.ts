import { describe, expect, it } from "vitest";
import type { NewRunEvent } from "../db/repositories/run-events.js";
import { DETAIL_BYTES, EventBudget, truncateText } from "./event-limits.js";

const at = new Date("2026-11-23T10:00:00.000Z");
const log = (message: string): NewRunEvent => ({ runId: "run_1", at, type: "log", message });

describe("the step log's limits", () => {
  it("admits events up to the limit, then one warning, then nothing", () => {
    const budget = new EventBudget({ maxEvents: 3, messageBytes: 100, dataValueBytes: 100 });
    const admitted = ["a", "b", "c", "d", "e"].map((m) => budget.admit(log(m)));
    expect(admitted.slice(0, 3).map((events) => events.map((e) => e.message))).toEqual([
      ["a"],
      ["b"],
      ["c"],
    ]);
    expect(admitted[3]).toMatchObject([
      {
        type: "log",
        level: "warn",
        message: expect.stringContaining("limit of 3 events"),
      },
    ]);
    expect(admitted[4]).toEqual([]);
  });

  it("cuts a long message to its byte limit, saying how long it was, without breaking a character", () => {
    const budget = new EventBudget({ maxEvents: 10, messageBytes: 8, dataValueBytes: 100 });
    const [event] = budget.admit(log("ééééé long"));
    // Eight bytes hold four é (two bytes each): the cut falls between characters.
    expect(event?.message).toMatch(/^éééé… \[truncated: \d+ bytes in all\]$/);
    expect(truncateText("short", 8)).toBe("short");
    expect(truncateText("€€€", 4)).toMatch(/^€… \[truncated/);
  });

  it("replaces a value of an event's data that is too large by a note, keeping the others", () => {
    const budget = new EventBudget({ maxEvents: 10, messageBytes: 100, dataValueBytes: 20 });
    const [event] = budget.admit({
      runId: "run_1",
      at,
      type: "data_updated",
      data: { small: 1, big: "x".repeat(100) },
    });
    expect(event?.data).toEqual({
      small: 1,
      big: expect.stringMatching(/too large for the step log; the run's data holds it/),
    });
  });

  it("cuts a step's detail that a run process sent past its bound, keeping a short one whole", () => {
    const budget = new EventBudget({ maxEvents: 10, messageBytes: 100, dataValueBytes: 100 });
    const step = { index: 0, kind: "click", label: "step 1 (click)" };
    const failed = (detail: string): NewRunEvent => ({
      runId: "run_1",
      at,
      type: "step_failed",
      step,
      detail,
      file: "failed-step-1-click.png",
    });
    const [long] = budget.admit(failed("#".repeat(10 * 1024)));
    expect(long?.detail).toMatch(/^#+… \[truncated: 10 KB in all\]$/);
    expect(Buffer.byteLength(long?.detail ?? "")).toBeLessThan(DETAIL_BYTES + 40);
    expect(long?.file).toBe("failed-step-1-click.png");
    const [short] = budget.admit(failed('"#submit"'));
    expect(short?.detail).toBe('"#submit"');
  });
});
