import { describe, expect, it } from "vitest";
import { runEvent, step } from "../../test-support/fixtures.js";
import { parkedOf } from "./parked.js";

const wakeAt = "2026-01-01T00:05:00.000Z";
const claimed = (id: number) => runEvent({ id, type: "run_claimed" });
const parked = (id: number) => runEvent({ id, type: "run_parked", data: { wake_at: wakeAt } });

describe("whether a run is parked", () => {
  it("is parked in the pause it was in before its park: an ask, or a requested pause", () => {
    const events = [
      claimed(1),
      runEvent({ id: 2, type: "step_started", step: step("code", "ask") }),
      runEvent({ id: 3, type: "run_paused", data: { reason: "ask", prompt: "The code?" } }),
      parked(4),
    ];
    expect(parkedOf(events)).toEqual({ eventId: 4, waiting: "ask", wakeAt });
    const requested = [claimed(1), runEvent({ id: 2, type: "run_paused" }), parked(3)];
    expect(parkedOf(requested)).toEqual({ eventId: 3, waiting: "requested", wakeAt });
  });

  it("is parked in a wait when nothing paused it since its worker took it", () => {
    const events = [
      claimed(1),
      runEvent({ id: 2, type: "run_paused", data: { reason: "requested" } }),
      runEvent({ id: 3, type: "run_resumed" }),
      runEvent({ id: 4, type: "step_started", step: step("nap") }),
      parked(5),
    ];
    expect(parkedOf(events)).toEqual({ eventId: 5, waiting: "wait", wakeAt });
  });

  it("reads no pause of an earlier claim into a later park", () => {
    // Paused, its worker lost without a resume, taken again, then parked in a wait.
    const events = [
      claimed(1),
      runEvent({ id: 2, type: "run_paused" }),
      runEvent({ id: 3, type: "worker_lost" }),
      claimed(4),
      runEvent({ id: 5, type: "step_started", step: step("nap") }),
      parked(6),
    ];
    expect(parkedOf(events)).toMatchObject({ eventId: 6, waiting: "wait" });
  });

  it("is no longer parked once a worker took it again", () => {
    const events = [claimed(1), runEvent({ id: 2, type: "run_paused" }), parked(3), claimed(4)];
    expect(parkedOf(events)).toBeNull();
    expect(parkedOf([claimed(1), runEvent({ id: 2, type: "step_started" })])).toBeNull();
    expect(parkedOf([])).toBeNull();
  });

  it("has no wake time when its event gives none", () => {
    expect(parkedOf([claimed(1), runEvent({ id: 2, type: "run_parked" })])).toEqual({
      eventId: 2,
      waiting: "wait",
      wakeAt: null,
    });
  });
});
