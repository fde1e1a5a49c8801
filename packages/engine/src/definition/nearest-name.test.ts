import { describe, expect, it } from "vitest";
import { nearestName } from "./nearest-name.js";

describe("nearestName", () => {
  it("suggests the nearest name within a third of its length", () => {
    expect(nearestName("usernme", ["password", "username"])).toBe("username");
    expect(nearestName("input", ["inputs", "steps"])).toBe("inputs");
    expect(nearestName("a", ["b"])).toBeUndefined();
  });

  it("suggests nothing for names longer than 64 characters, however near", () => {
    const long = "n".repeat(65);
    expect(nearestName(long, [`${long}s`])).toBeUndefined();
    const within = "n".repeat(64);
    expect(nearestName(within, [`${within}s`])).toBe(`${within}s`);
  });

  it("compares at most 500 candidates of a fitting length", () => {
    const candidates = Array.from({ length: 600 }, (_, i) => `name_${String(i).padStart(3, "0")}`);
    // The 501st fitting candidate is the only near one: never reached.
    candidates[500] = "target_name";
    expect(nearestName("target_nme", candidates)).toBeUndefined();
    expect(nearestName("target_nme", candidates.slice(400))).toBe("target_name");
  });
});
