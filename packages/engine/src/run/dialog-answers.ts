import type { OpenedDialog } from "../browser/browser-access.js";
import type { DialogChoice, Step } from "../definition/types.js";
import type { StepRef } from "./types.js";

/** How much of a dialog's text its log line quotes. */
const QUOTED_CHARS = 300;

interface Running {
  step: StepRef;
  /** The step's own `on_dialog`. */
  choice: DialogChoice | undefined;
  /** The `on_dialog` of the skill the step belongs to. */
  skillChoice: DialogChoice | undefined;
  /** How many calls deep that skill runs. */
  callDepth: number;
}

/**
 * Answers the dialogs of a run's pages as the steps running say: the innermost step with an
 * `on_dialog`, else that of the skill it belongs to (a called skill's, then its caller's), else
 * accept. A dialog opening while no step runs (between steps, during a retry's backoff) is
 * answered as the run's skill says. Each dialog is logged, with its text, against the step
 * running (or the last one that ran).
 */
export class DialogAnswers {
  /** The steps running, outermost first: a block's step, then those of its steps running. */
  private readonly running: Running[] = [];
  private lastStep: StepRef | undefined;

  constructor(
    private readonly skillChoice: DialogChoice | undefined,
    private readonly log: (step: StepRef, message: string) => void,
  ) {}

  /** Marks one attempt of `step` as running until the returned function is called. */
  enter(
    ref: StepRef,
    step: Step,
    skillChoice: DialogChoice | undefined,
    callDepth: number,
  ): () => void {
    const entry: Running = { step: ref, choice: step.on_dialog, skillChoice, callDepth };
    this.running.push(entry);
    this.lastStep = ref;
    return () => {
      const index = this.running.lastIndexOf(entry);
      if (index !== -1) this.running.splice(index, 1);
    };
  }

  /** The answer to a dialog that just opened; logs it. */
  answer(dialog: OpenedDialog): DialogChoice {
    const choice = this.choice();
    const step = this.running.at(-1)?.step ?? this.lastStep;
    // Without a step there is no page yet to open a dialog: never the case, but nothing to log.
    if (step !== undefined) this.log(step, describe(dialog, choice));
    return choice;
  }

  private choice(): DialogChoice {
    for (let i = this.running.length - 1; i >= 0; i -= 1) {
      const entry = this.running[i] as Running;
      if (entry.choice !== undefined) return entry.choice;
      // The outermost step of a called skill: its skill's choice comes before its caller's.
      const outer = this.running[i - 1];
      const skillStarts = outer === undefined || outer.callDepth < entry.callDepth;
      if (skillStarts && entry.skillChoice !== undefined) return entry.skillChoice;
    }
    return this.skillChoice ?? "accept";
  }
}

/** `confirm dialog "Archive invoice 7?" dismissed`, `prompt dialog "Name?" accepted with "Ada"`. */
function describe(dialog: OpenedDialog, choice: DialogChoice): string {
  const text = dialog.message === "" ? "" : ` ${quote(dialog.message)}`;
  const answer =
    choice === "dismiss"
      ? "dismissed"
      : dialog.type === "prompt"
        ? `accepted with ${quote(dialog.defaultValue)}`
        : "accepted";
  return `${dialog.type} dialog${text} ${answer}`;
}

function quote(text: string): string {
  return JSON.stringify(text.length > QUOTED_CHARS ? `${text.slice(0, QUOTED_CHARS)}…` : text);
}
