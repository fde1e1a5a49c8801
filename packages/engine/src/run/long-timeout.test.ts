import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MAX_TIMER_MS, setLongTimeout } from "./long-timeout.js";

describe("setLongTimeout", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("waits the whole delay past setTimeout's range instead of firing at once", () => {
    const fired = vi.fn();
    setLongTimeout(fired, MAX_TIMER_MS + 10);
    vi.advanceTimersByTime(MAX_TIMER_MS);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(10);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it("can be cancelled in any of its links", () => {
    const fired = vi.fn();
    const cancel = setLongTimeout(fired, MAX_TIMER_MS * 2);
    vi.advanceTimersByTime(MAX_TIMER_MS + 1);
    cancel();
    vi.advanceTimersByTime(MAX_TIMER_MS * 2);
    expect(fired).not.toHaveBeenCalled();
  });
});
