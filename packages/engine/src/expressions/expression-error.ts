/** A template or expression that cannot be parsed or evaluated; the message names it. */
export class ExpressionError extends Error {
  override readonly name = "ExpressionError";
}
