/**
 * The text of whatever was thrown: an Error's message, or the `message` of a plain object (JSONata
 * throws those), or the value as text.
 */
export function messageOf(error: unknown): string {
  if (typeof error === "object" && error !== null && "message" in error) {
    return String(error.message);
  }
  return String(error);
}
