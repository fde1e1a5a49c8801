import { describe, expect, it } from "vitest";
import type { OpenedDialog } from "../browser/browser-access.js";
import type { DialogChoice, Step } from "../definition/types.js";
import { DialogAnswers } from "./dialog-answers.js";
import type { StepRef } from "./types.js";

const confirm: OpenedDialog = { type: "confirm", message: "Sure?", defaultValue: "" };

const ref = (label: string): StepRef => ({ index: 0, kind: "click", label });
const step = (on_dialog?: DialogChoice): Step =>
  ({ click: { selector: "a" }, ...(on_dialog && { on_dialog }) }) as Step;

function answers(skillChoice?: DialogChoice) {
  const logs: string[] = [];
  const dialogs = new DialogAnswers(skillChoice, (at, message) =>
    logs.push(`${at.label}: ${message}`),
  );
  return { dialogs, logs };
}

describe("DialogAnswers", () => {
  it("accepts, logging against the step running, when nothing says otherwise", () => {
    const { dialogs, logs } = answers();
    const leave = dialogs.enter(ref("open"), step(), undefined, 0);
    expect(dialogs.answer(confirm)).toBe("accept");
    leave();
    expect(logs).toEqual(['open: confirm dialog "Sure?" accepted']);
  });

  it("answers as the skill says while no step runs, logged against the last step", () => {
    const { dialogs, logs } = answers("dismiss");
    dialogs.enter(ref("first"), step("accept"), "dismiss", 0)();
    expect(dialogs.answer(confirm)).toBe("dismiss");
    expect(logs).toEqual(['first: confirm dialog "Sure?" dismissed']);
  });

  it("the innermost step's choice wins, then the blocks' around it, then the skill's", () => {
    const { dialogs } = answers("accept");
    const leaveBlock = dialogs.enter(ref("block"), step("dismiss"), "accept", 0);
    const leaveInner = dialogs.enter(ref("inner"), step(), "accept", 0);
    expect(dialogs.answer(confirm)).toBe("dismiss");
    const leaveOwn = dialogs.enter(ref("own"), step("accept"), "accept", 0);
    expect(dialogs.answer(confirm)).toBe("accept");
    leaveOwn();
    leaveInner();
    leaveBlock();
    expect(dialogs.answer(confirm)).toBe("accept");
  });

  it("a called skill's on_dialog holds for its steps, before its caller's", () => {
    const { dialogs } = answers("accept");
    const leaveCall = dialogs.enter(ref("login"), step(), "accept", 0);
    const leaveCalled = dialogs.enter(ref("login › step 1 (click)"), step(), "dismiss", 1);
    expect(dialogs.answer(confirm)).toBe("dismiss");
    leaveCalled();
    // A called skill without one answers as its caller's call step or skill says.
    const leaveQuiet = dialogs.enter(ref("login › step 2 (click)"), step(), undefined, 1);
    expect(dialogs.answer(confirm)).toBe("accept");
    leaveQuiet();
    leaveCall();
  });

  it("quotes a prompt's answer and shortens a long text", () => {
    const { dialogs, logs } = answers();
    dialogs.enter(ref("ask"), step(), undefined, 0);
    dialogs.answer({ type: "prompt", message: "Name?", defaultValue: "Ada" });
    dialogs.answer({ type: "alert", message: "x".repeat(400), defaultValue: "" });
    dialogs.answer({ type: "beforeunload", message: "", defaultValue: "" });
    expect(logs[0]).toBe('ask: prompt dialog "Name?" accepted with "Ada"');
    expect(logs[1]).toBe(`ask: alert dialog "${"x".repeat(300)}…" accepted`);
    expect(logs[2]).toBe("ask: beforeunload dialog accepted");
  });
});
