import { describe, expect, it } from "vitest";
import { runSession } from "../../test-support/fixtures.js";
import { filtersOf, matchesFilters } from "./run-filters.js";

describe("the run list's filters", () => {
  it("are read from the address, empty for any", () => {
    expect(filtersOf(new URLSearchParams("skill=skill_sum"))).toEqual({
      skill: "skill_sum",
      state: "",
    });
  });

  it("match a run by skill and state, a run without a state being queued", () => {
    const queued = runSession({ state: null });
    expect(matchesFilters({ skill: "", state: "queued" }, queued)).toBe(true);
    expect(matchesFilters({ skill: "", state: "play" }, queued)).toBe(false);
    expect(matchesFilters({ skill: "skill_sum", state: "" }, queued)).toBe(true);
    expect(matchesFilters({ skill: "skill_other", state: "" }, queued)).toBe(false);
  });
});
