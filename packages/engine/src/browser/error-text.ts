import { messageOf } from "../error-message.js";
/** The first line of an error's message: Playwright appends a call log below it. */
export function firstLine(error: unknown): string {
  const message = messageOf(error);
  return message.split("\n")[0] ?? message;
}

/** `locator.click: Error: strict mode violation…` → `strict mode violation…`. */
export function withoutApiName(message: string): string {
  return message.replace(/^[a-zA-Z]+\.[a-zA-Z]+: (?:Error: )?/, "");
}
