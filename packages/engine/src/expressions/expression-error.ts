/** A template or expression that cannot be parsed or evaluated; the message names it. */
export class ExpressionError extends Error {
  override readonly name = "ExpressionError";
}

/** The text of whatever JSONata threw: its errors are plain objects with a `message`. */
export function messageOf(error: unknown): string {
  if (typeof error === "object" && error !== null && "message" in error) {
    return String(error.message);
  }
  return String(error);
}
