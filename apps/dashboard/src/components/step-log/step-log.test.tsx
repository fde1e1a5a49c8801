import { describe, expect, it, vi } from "vitest";
import { runEvent, step } from "../../test-support/fixtures.js";
import { click, find, render } from "../../test-support/render.js";
import { StepLog } from "./step-log.js";

const events = [
  runEvent({
    id: 1,
    type: "step_started",
    step: step("step 1 (goto)", "goto"),
    video_offset_ms: 0,
  }),
  runEvent({
    id: 2,
    type: "step_finished",
    step: step("step 1 (goto)", "goto"),
    duration_ms: 1400,
  }),
  runEvent({ id: 3, type: "step_started", step: step("block › inner"), video_offset_ms: 2500 }),
  runEvent({
    id: 4,
    type: "log",
    step: step("block › inner"),
    level: "info",
    message: "hello",
    video_offset_ms: 2600,
  }),
];

describe("the step log", () => {
  it("says so when there are no events yet", async () => {
    const { container } = await render(<StepLog events={[]} />);
    expect(container.textContent).toBe("No events yet.");
  });

  it("shows each row's status in words, label, duration and nesting", async () => {
    const { container } = await render(<StepLog events={events} />);
    const first = find(container, 'li[data-label="step 1 (goto)"]');
    expect(find(first, ".step-status").textContent).toBe("done");
    expect(find(first, ".step-duration").textContent).toBe("1.4 s");
    expect(find(container, 'li[data-label="block › inner"]').style.paddingInlineStart).toBe(
      "1.25rem",
    );
    expect(find(container, 'li[data-label="info"]').style.paddingInlineStart).toBe("2.5rem");
  });

  it("has no buttons while the run has no video", async () => {
    const { container } = await render(<StepLog events={events} />);
    expect(container.querySelectorAll("button")).toHaveLength(0);
  });

  it("offers a step's action on its first row only, and none on log lines", async () => {
    const retried = [
      runEvent({ id: 5, type: "step_started", step: step("step 3"), attempt: 1 }),
      runEvent({ id: 6, type: "step_failed", step: step("step 3"), attempt: 1, message: "no" }),
      runEvent({ id: 7, type: "step_started", step: step("step 3"), attempt: 2 }),
      runEvent({ id: 8, type: "step_finished", step: step("step 3"), attempt: 2 }),
      runEvent({ id: 9, type: "run_finished" }),
    ];
    const { container } = await render(
      <StepLog
        events={[...events, ...retried]}
        stepAction={(label) => <span className="act">{`act on ${label}`}</span>}
      />,
    );
    expect([...container.querySelectorAll(".act")].map((act) => act.textContent)).toEqual([
      "act on step 1 (goto)",
      "act on block › inner",
      "act on step 3",
    ]);
    expect(find(container, 'li[data-label="block › inner"] .act')).toBeTruthy();
    expect(container.querySelector('li[data-label="info"] .act')).toBeNull();
  });

  it("makes each step the video shows a button that moves the video there; log lines are not", async () => {
    const onSeek = vi.fn();
    const { container } = await render(<StepLog events={events} onSeek={onSeek} />);
    expect(container.querySelectorAll("button")).toHaveLength(2);
    expect(container.querySelector('li[data-label="info"] button')).toBeNull();
    await click(find(container, 'li[data-label="block › inner"] button'));
    expect(onSeek).toHaveBeenCalledWith(2500, "block › inner");
  });
});
