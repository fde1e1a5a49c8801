import type { IncomingMessage } from "node:http";

// The text of a JSON request body as it was sent, kept beside the parsed value for requests
// whose problems are placed at a line and column of the body (skill definitions).
const texts = new WeakMap<IncomingMessage, string>();

export function keepBodyText(req: IncomingMessage, text: string): void {
  texts.set(req, text);
}

/** The body's text as sent, when it was kept. */
export function bodyText(req: IncomingMessage): string | undefined {
  return texts.get(req);
}
