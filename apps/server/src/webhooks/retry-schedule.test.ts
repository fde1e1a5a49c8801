import { describe, expect, it } from "vitest";
import { MAX_DELIVERY_ATTEMPTS, retryDelayMs } from "./retry-schedule.js";

const HOUR = 3_600_000;

describe("the webhook retry schedule", () => {
  it("doubles from 5 s to at most 6 h, and gives up after 16 attempts, about a day in all", () => {
    const middle = () => 0.5;
    const waits = Array.from({ length: MAX_DELIVERY_ATTEMPTS }, (_, i) =>
      retryDelayMs(i + 1, { random: middle }),
    );
    expect(waits.slice(0, 4)).toEqual([5_000, 10_000, 20_000, 40_000]);
    expect(waits.at(-2)).toBe(6 * HOUR);
    expect(waits.at(-1)).toBeUndefined();
    const total = waits.reduce<number>((sum, wait) => sum + (wait ?? 0), 0);
    expect(total / HOUR).toBeGreaterThan(22);
    expect(total / HOUR).toBeLessThan(26);
  });

  it("spreads each wait by ±20 %", () => {
    expect(retryDelayMs(3, { random: () => 0 })).toBe(16_000);
    expect(retryDelayMs(3, { random: () => 0.999_999 })).toBe(24_000);
  });

  it("keeps its shape when shortened", () => {
    expect(retryDelayMs(1, { firstDelayMs: 100, random: () => 0.5 })).toBe(100);
    expect(retryDelayMs(14, { firstDelayMs: 100, random: () => 0.5 })).toBe((6 * HOUR) / 50);
  });
});
