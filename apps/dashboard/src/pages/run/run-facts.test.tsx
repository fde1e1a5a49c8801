import { describe, expect, it } from "vitest";
import { runSession } from "../../test-support/fixtures.js";
import { render } from "../../test-support/render.js";
import { RunFacts } from "./run-facts.js";

/** The facts as "term: value" lines. */
function facts(container: HTMLElement): string[] {
  return [...container.querySelectorAll(".facts > div")].map(
    (fact) => `${fact.querySelector("dt")?.textContent}: ${fact.querySelector("dd")?.textContent}`,
  );
}

describe("the run's facts", () => {
  it("say what a queued run waits for, and give it no duration", async () => {
    const queued = runSession({ state: null, waiting_for: "skill_limit" });
    const { container } = await render(<RunFacts run={queued} pause={null} parked={null} />);
    const shown = facts(container);
    expect(shown).toContain(
      "Waiting for: a run of this skill to end (the skill's limit of runs at once)",
    );
    expect(shown.some((fact) => fact.startsWith("Duration"))).toBe(false);
  });

  it("say a queued run waits for a worker when the server did not say what", async () => {
    const queued = runSession({ state: null, waiting_for: null });
    const { container } = await render(<RunFacts run={queued} pause={null} parked={null} />);
    expect(facts(container)).toContain("Waiting for: a worker");
  });

  it("give a run under way its duration so far, and no waiting", async () => {
    const started = new Date(Date.now() - 21_000).toISOString();
    const running = runSession({ state: "play", start_time: started });
    const { container } = await render(<RunFacts run={running} pause={null} parked={null} />);
    const shown = facts(container);
    expect(shown).toContain("Duration: 21.0 s so far");
    expect(shown.some((fact) => fact.startsWith("Waiting for"))).toBe(false);
  });
});
