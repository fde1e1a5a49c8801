import type { BrowserContext, Dialog } from "playwright-core";
import type { DialogChoice } from "../definition/types.js";
import type { DialogHandler, DialogType } from "./browser-access.js";
import { firstLine } from "./error-text.js";

const DIALOG_TYPES: readonly string[] = ["alert", "confirm", "prompt", "beforeunload"];

/**
 * Answers every dialog of every page of `context` (popups included) as it opens, as `handler()`
 * says, else accepting it: a dialog left open would freeze its page, and the step waiting on it.
 * Playwright dismisses dialogs only when nobody listens; here somebody always does.
 */
export function answerDialogs(
  context: BrowserContext,
  handler: () => DialogHandler | undefined,
  problem: (message: string) => void,
): void {
  context.on("dialog", (dialog: Dialog) => {
    const type = dialog.type();
    let choice: DialogChoice = "accept";
    try {
      choice =
        handler()?.({
          type: (DIALOG_TYPES.includes(type) ? type : "alert") as DialogType,
          message: dialog.message(),
          defaultValue: dialog.defaultValue(),
        }) ?? "accept";
    } catch (error) {
      problem(`a ${type} dialog was accepted: deciding its answer failed: ${firstLine(error)}`);
    }
    // A prompt accepted answers its default text, as pressing OK in it would.
    const answered =
      choice === "dismiss"
        ? dialog.dismiss()
        : dialog.accept(type === "prompt" ? dialog.defaultValue() : undefined);
    answered.catch((error: unknown) => {
      // The page went away with its dialog (a tab closed, a navigation): nothing waits on it.
      problem(`a ${type} dialog could not be answered: ${firstLine(error)}`);
    });
  });
}
