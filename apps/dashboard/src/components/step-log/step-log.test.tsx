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

  it("moves the video from every step of a run claimed once, as it did", async () => {
    const onSeek = vi.fn();
    const claimed = runEvent({ id: 0, type: "run_claimed", message: "claimed by worker w1" });
    const { container } = await render(<StepLog events={[claimed, ...events]} onSeek={onSeek} />);
    expect(container.querySelectorAll("button.step-seek")).toHaveLength(2);
    await click(find(container, 'li[data-label="step 1 (goto)"] button'));
    expect(onSeek).toHaveBeenCalledWith(0, "step 1 (goto)");
    expect(container.querySelector(".step-note")).toBeNull();
  });

  it("moves the video only from the steps after the run's latest claim, and says where it begins", async () => {
    // Parked at step 2, then taken again: the video is the second claim's alone, and step 1's
    // offset points into the first claim's, which is not shown.
    const reclaimed = [
      runEvent({ id: 1, type: "run_claimed", message: "claimed by worker w1" }),
      runEvent({ id: 2, type: "step_started", step: step("step 1"), video_offset_ms: 331 }),
      runEvent({ id: 3, type: "step_finished", step: step("step 1"), duration_ms: 200 }),
      runEvent({ id: 4, type: "run_parked", message: "parked" }),
      runEvent({ id: 5, type: "run_claimed", message: "claimed by worker w2" }),
      runEvent({ id: 6, type: "step_started", step: step("step 2"), video_offset_ms: 40 }),
      runEvent({ id: 7, type: "step_finished", step: step("step 2"), duration_ms: 300 }),
    ];
    const onSeek = vi.fn();
    const { container } = await render(<StepLog events={reclaimed} onSeek={onSeek} />);
    expect(container.querySelector('li[data-label="step 1"] button')).toBeNull();
    expect(find(container, 'li[data-label="step 1"] .step-status').textContent).toBe("done");
    const seekable = [...container.querySelectorAll("button.step-seek")];
    expect(seekable.map((button) => button.closest("li")?.dataset.label)).toEqual(["step 2"]);
    await click(find(container, 'li[data-label="step 2"] button'));
    expect(onSeek).toHaveBeenCalledWith(40, "step 2");
    // The note is on the second claim's row, and only there.
    const notes = [...container.querySelectorAll(".step-note")];
    expect(notes.map((note) => note.closest("li")?.textContent)).toEqual([
      "Taken by a workerclaimed by worker w2The video shows the run from here on: the steps above were recorded in an earlier video, which is not shown.",
    ]);
  });

  it("says nothing of where the video begins while the run has no video", async () => {
    const reclaimed = [
      runEvent({ id: 1, type: "run_claimed" }),
      runEvent({ id: 2, type: "step_started", step: step("step 1"), video_offset_ms: 331 }),
      runEvent({ id: 3, type: "run_claimed" }),
    ];
    const { container } = await render(<StepLog events={reclaimed} />);
    expect(container.querySelector(".step-note")).toBeNull();
  });
});

describe("the step log's detail and files", () => {
  const failed = [
    runEvent({ id: 1, type: "step_started", step: step("step 2 (click)", "click"), attempt: 1 }),
    runEvent({
      id: 2,
      type: "step_failed",
      step: step("step 2 (click)", "click"),
      attempt: 1,
      message: 'no element matches "#buy"',
      detail: '"#buy"',
      file: "failed-step-2-click.png",
    }),
    runEvent({ id: 3, type: "step_started", step: step("step 3 (set)", "set") }),
    runEvent({
      id: 4,
      type: "step_finished",
      step: step("step 3 (set)", "set"),
      detail: 'price = "12.99"',
    }),
  ];

  it("shows what each step acted on beside its text", async () => {
    const { container } = await render(<StepLog events={failed} />);
    const click = find(container, 'li[data-label="step 2 (click)"]');
    expect(find(click, ".step-detail").textContent).toBe('"#buy"');
    const set = find(container, 'li[data-label="step 3 (set)"]');
    expect(find(set, ".step-detail").textContent).toBe('price = "12.99"');
  });

  it("does not repeat a log step's message as its detail: the log line's row shows it", async () => {
    const { container } = await render(
      <StepLog
        events={[
          runEvent({ id: 1, type: "step_started", step: step("step 1 (log)", "log") }),
          runEvent({
            id: 2,
            type: "log",
            step: step("step 1 (log)", "log"),
            level: "info",
            message: "round 2",
          }),
          runEvent({
            id: 3,
            type: "step_finished",
            step: step("step 1 (log)", "log"),
            detail: "round 2",
          }),
        ]}
      />,
    );
    expect(container.textContent).toContain("round 2");
    expect(container.querySelector(".step-detail")).toBeNull();
  });

  it("links a failed step's screenshot with a thumbnail once its address is known, its name until then", async () => {
    const url = "/v1/run/run_1/files/failed-step-2-click.png?expires=1&signature=s";
    const known = await render(
      <StepLog
        events={failed}
        fileUrl={(name) => (name === "failed-step-2-click.png" ? url : undefined)}
      />,
    );
    const link = find(known.container, "a.step-file");
    expect(link.getAttribute("href")).toBe(url);
    expect(find(link, "img").getAttribute("src")).toBe(url);
    expect(link.textContent).toBe("failed-step-2-click.png");
    // Outside the row's seek button: a link cannot sit inside one.
    expect(link.closest("button")).toBeNull();

    const unknown = await render(<StepLog events={failed} />);
    expect(unknown.container.querySelector("a.step-file")).toBeNull();
    expect(find(unknown.container, ".step-file").textContent).toBe("failed-step-2-click.png");
  });
});
