import { describe, expect, it } from "vitest";
import { runEvent } from "../../test-support/fixtures.js";
import { lastPause } from "./pause.js";

describe("the pause a run is in", () => {
  it("is the last run_paused, with the ask's prompt and schema", () => {
    const schema = { type: "string" };
    const events = [
      runEvent({ id: 1, type: "run_paused", data: { reason: "requested" } }),
      runEvent({ id: 2, type: "run_resumed" }),
      runEvent({ id: 3, type: "run_paused", data: { reason: "ask", prompt: "The code?", schema } }),
      runEvent({ id: 4, type: "log" }),
    ];
    expect(lastPause(events)).toEqual({ eventId: 3, reason: "ask", prompt: "The code?", schema });
  });

  it("is a requested one when the event gives no reason", () => {
    expect(lastPause([runEvent({ id: 7, type: "run_paused" })])).toMatchObject({
      reason: "requested",
      prompt: "",
    });
  });

  it("is none once the run was resumed after it", () => {
    const events = [
      runEvent({ id: 1, type: "run_paused" }),
      runEvent({ id: 2, type: "run_resumed" }),
    ];
    expect(lastPause(events)).toBeNull();
  });
});
