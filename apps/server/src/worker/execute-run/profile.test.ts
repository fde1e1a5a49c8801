import { describe, expect, it } from "vitest";
import { SecretUnreadable } from "../../secrets/secret-box.js";
import type { RunContext } from "../execute-run.js";
import { endingSaves, openProfile, profileStartMessage } from "./profile.js";

/** A run context with only what openProfile reads: the run's profile and the repository. */
function contextWith(open: () => Promise<unknown>, save: "on_success" | null = null): RunContext {
  return {
    run: { owner: "alice", profile: { name: "acme-ann", save } },
    deps: { profiles: { open } },
  } as unknown as RunContext;
}

describe("a run's browser profile in the worker", () => {
  it("is saved on_success only by a finished run, always also by a failed or timed-out one", () => {
    const finished = { outcome: "finished", data: {} } as const;
    const failed = { outcome: "failed", data: {}, error: { step: null, message: "x" } } as const;
    const stopped = (reason: "timeout" | "cancel" | "shutdown" | "park" | "lost" | "quota") =>
      ({ outcome: "aborted", data: {}, reason }) as const;
    expect(endingSaves("on_success", finished)).toBe(true);
    expect(endingSaves("on_success", failed)).toBe(false);
    expect(endingSaves("on_success", stopped("timeout"))).toBe(false);
    expect(endingSaves("always", finished)).toBe(true);
    expect(endingSaves("always", failed)).toBe(true);
    expect(endingSaves("always", stopped("timeout"))).toBe(true);
    for (const reason of ["cancel", "shutdown", "park", "lost"] as const) {
      expect(endingSaves("always", stopped(reason)), reason).toBe(false);
    }
  });

  it("starts blank without a saved version, and fails the run when the state does not open", async () => {
    const none = await openProfile(contextWith(async () => null, "on_success"));
    expect(none).toEqual({ name: "acme-ann", save: "on_success", state: null, version: null });
    expect(profileStartMessage(none as never, false)).toBe(
      "browser profile acme-ann has no saved version: the browser starts without one; saved back if the run finishes",
    );
    const unreadable = await openProfile(
      contextWith(async () => {
        throw new SecretUnreadable("it was sealed under another key");
      }),
    );
    expect(unreadable).toBe(
      "browser profile acme-ann cannot be read: it was sealed under another key",
    );
    await expect(
      openProfile(
        contextWith(async () => {
          throw new Error("disk I/O error");
        }),
      ),
    ).rejects.toThrow("disk I/O error");
  });
});
