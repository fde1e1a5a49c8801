import type { RunSessionState } from "@skillrun/client";
import { describe, expect, it } from "vitest";
import { json, refused, renderWithApi } from "../../test-support/api.js";
import { runSession } from "../../test-support/fixtures.js";
import { button, click, find, waitFor } from "../../test-support/render.js";
import type { Pause } from "./pause.js";
import { RunActions } from "./run-actions.js";

const ask: Pause = { eventId: 3, reason: "ask", prompt: "The code?", schema: undefined };
const requested: Pause = { ...ask, reason: "requested" };

async function buttonsFor(state: RunSessionState, paused: Pause | null = null) {
  const { container } = await renderWithApi(
    <RunActions run={runSession({ state })} paused={paused} />,
    () => json({}),
  );
  return [...container.querySelectorAll("button")].map((b) => b.textContent);
}

describe("what can be done to a run", () => {
  it("depends on its state: pause while it plays, resume a requested pause, cancel until it ends", async () => {
    expect(await buttonsFor("play")).toEqual(["Cancel", "Pause", "Run again"]);
    expect(await buttonsFor("pause", requested)).toEqual(["Cancel", "Resume", "Run again"]);
    expect(await buttonsFor("finish")).toEqual(["Run again"]);
  });

  it("offers a rerun from the failed step only when the run failed at a step", async () => {
    const failedAt = (step: string | null) => ({ error: { step, message: "too short" } });
    const buttons = async (run: Parameters<typeof runSession>[0]) => {
      const { container } = await renderWithApi(
        <RunActions run={runSession(run)} paused={null} />,
        () => json({}),
      );
      return [...container.querySelectorAll("button")].map((b) => b.textContent);
    };
    expect(await buttons({ state: "reset", data: failedAt("step 2 (fail)") })).toEqual([
      "Rerun from the failed step",
      "Run again",
    ]);
    expect(await buttons({ state: "timeout", data: failedAt("wait") })).toContain(
      "Rerun from the failed step",
    );
    // Failed, but not at a step (its worker was lost): there is no step to start at.
    expect(await buttons({ state: "reset", data: failedAt(null) })).toEqual(["Run again"]);
    expect(await buttons({ state: "cancel" })).toEqual(["Run again"]);
  });

  it("reruns a failed run from the step it failed at and opens the new run", async () => {
    const run = runSession({
      state: "reset",
      data: { error: { step: "step 2 (fail)", message: "too short" } },
    });
    const { container, calls, bodies } = await renderWithApi(
      <RunActions run={run} paused={null} />,
      () =>
        json(
          runSession({ id: "run_3", rerun_of: { run_id: "run_1", step: "step 2 (fail)" } }),
          201,
        ),
    );
    await click(button(container, "Rerun from the failed step"));
    await waitFor(() => expect(window.location.pathname).toBe("/ui/runs/run_3"));
    expect(calls).toEqual(["POST /run/run_1/rerun"]);
    // No from_step: the server starts at the step the run failed at.
    expect(bodies[0]).toEqual({});
  });

  it("shows why a rerun was refused", async () => {
    const run = runSession({
      state: "reset",
      data: { error: { step: "step 2 (fail)", message: "too short" } },
    });
    const msg =
      "the checkpoint before step step 2 (fail) was 9000000 bytes, more than RUN_CHECKPOINT_MAX_BYTES, and was not kept";
    const { container } = await renderWithApi(<RunActions run={run} paused={null} />, () =>
      refused([["body", "from_step"], `Value error, ${msg}`]),
    );
    const before = window.location.pathname;
    await click(button(container, "Rerun from the failed step"));
    // In the server's words, without the place it names (a rerun is sent its step alone) or
    // FastAPI's "Value error, ".
    await waitFor(() => expect(find(container, '[role="alert"]').textContent).toBe(msg));
    expect(window.location.pathname).toBe(before);
  });

  it("offers no Resume for an ask, which its answer resumes", async () => {
    expect(await buttonsFor("pause", ask)).toEqual(["Cancel", "Run again"]);
  });

  it("pauses the run, and shows a refusal", async () => {
    const { container, calls } = await renderWithApi(
      <RunActions run={runSession({ state: "play" })} paused={null} />,
      () => json({ detail: "The run has ended" }, 409),
    );
    await click(button(container, "Pause"));
    await waitFor(() =>
      expect(find(container, '[role="alert"]').textContent).toBe("The run has ended"),
    );
    expect(calls).toEqual(["POST /run/run_1/pause"]);
  });

  it("runs it again with the same inputs and opens the new run", async () => {
    const run = runSession({ state: "finish", inputs: { a: 2, b: 5 } });
    const { container, calls, bodies } = await renderWithApi(
      <RunActions run={run} paused={null} />,
      () => json(runSession({ id: "run_2" }), 201),
    );
    await click(button(container, "Run again"));
    await waitFor(() => expect(window.location.pathname).toBe("/ui/runs/run_2"));
    expect(calls).toEqual(["POST /run/"]);
    expect(bodies[0]).toEqual({ skill_id: "skill_sum", inputs: { a: 2, b: 5 } });
  });

  it("opens the skill's form instead when an input is a secret the API masked", async () => {
    const run = runSession({ state: "finish", inputs: { user: "ada", password: "***" } });
    const { container, calls } = await renderWithApi(<RunActions run={run} paused={null} />, () =>
      json({}),
    );
    await click(button(container, "Run again"));
    await waitFor(() =>
      expect(window.location.pathname + window.location.search).toBe(
        "/ui/skills/skill_sum?again=run_1",
      ),
    );
    expect(calls).toEqual([]);
  });
});
