import { describe, expect, it } from "vitest";
import {
  canTransition,
  isTerminal,
  STORED_RUN_STATES,
  sourcesOf,
  TERMINAL_STATES,
} from "./run-state-machine.js";

describe("the run state machine", () => {
  it("lets no terminal run change again", () => {
    for (const from of TERMINAL_STATES) {
      for (const to of STORED_RUN_STATES) expect(canTransition(from, to)).toBe(false);
    }
  });

  it("knows the four terminal states and nothing else as terminal", () => {
    expect(STORED_RUN_STATES.filter(isTerminal)).toEqual(["finish", "reset", "cancel", "timeout"]);
  });

  it("allows exactly the moves docs/api.md lists", () => {
    const moves = STORED_RUN_STATES.flatMap((from) =>
      STORED_RUN_STATES.filter((to) => canTransition(from, to)).map(
        (to) => `${from ?? "queued"}→${to ?? "queued"}`,
      ),
    );
    expect(moves.sort()).toEqual(
      [
        "queued→play",
        "queued→cancel",
        "queued→timeout",
        "play→pause",
        "play→finish",
        "play→reset",
        "play→cancel",
        "play→timeout",
        "play→queued",
        "pause→play",
        "pause→reset",
        "pause→cancel",
        "pause→timeout",
        "pause→queued",
        "editing→cancel",
      ].sort(),
    );
  });

  it("lists the sources of a move for conditional updates", () => {
    expect(sourcesOf("cancel")).toEqual([null, "play", "pause", "editing"]);
    expect(sourcesOf("finish")).toEqual(["play"]);
    expect(sourcesOf(null)).toEqual(["play", "pause"]);
  });
});
