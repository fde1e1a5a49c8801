import { quote } from "../definition/describe.js";
import { ExpressionError } from "./expression-error.js";

/** A piece of a template string: literal text, or one `{{ expr }}`. */
export type TemplatePart = { text: string } | TemplateExpression;

/** One `{{ expr }}` of a template. */
export interface TemplateExpression {
  /** The JSONata text inside the braces, trimmed. */
  expression: string;
  /** The whole `{{ … }}`, to name it in messages. */
  source: string;
  /** Where `expression` begins in the string, so a fault in it can be pointed at. */
  start: number;
}

/** Tells whether a string holds a template at all; most strings in a skill do not. */
export function hasTemplate(text: string): boolean {
  return text.includes("{{");
}

/** Splits a string into literal text and `{{ expr }}` parts; throws on an unclosed or empty one. */
export function parseTemplate(text: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let literalStart = 0;
  let open = text.indexOf("{{");
  while (open !== -1) {
    const close = closingBraces(text, open + 2);
    if (close === -1) throw new ExpressionError(`unclosed "{{" in ${quote(text)}`);
    if (open > literalStart) parts.push({ text: text.slice(literalStart, open) });
    const source = text.slice(open, close + 2);
    const inside = text.slice(open + 2, close);
    const expression = inside.trim();
    if (expression === "") throw new ExpressionError(`empty expression ${source}`);
    const start = open + 2 + (inside.length - inside.trimStart().length);
    parts.push({ expression, source, start });
    literalStart = close + 2;
    open = text.indexOf("{{", literalStart);
  }
  if (literalStart < text.length) parts.push({ text: text.slice(literalStart) });
  return parts;
}

/** The one expression of a template that is nothing else (whitespace aside), if it is one. */
export function wholeExpression(parts: readonly TemplatePart[]): TemplateExpression | undefined {
  const expressions = parts.filter((part) => "expression" in part);
  const [only] = expressions;
  const textIsBlank = parts.every((part) => !("text" in part) || part.text.trim() === "");
  return expressions.length === 1 && textIsBlank ? only : undefined;
}

/**
 * The index of the `}}` that ends an expression starting at `from`. JSONata object constructors
 * and strings may hold `}}` themselves (`{{ {"a": {"b": 1}} }}`), so braces are counted and
 * quoted text is skipped.
 */
function closingBraces(text: string, from: number): number {
  let depth = 0;
  let quoteMark: string | undefined;
  for (let index = from; index < text.length; index += 1) {
    const char = text[index];
    if (quoteMark !== undefined) {
      // Backquoted field names have no escapes in JSONata; string literals do.
      if (char === "\\" && quoteMark !== "`") index += 1;
      else if (char === quoteMark) quoteMark = undefined;
    } else if (char === '"' || char === "'" || char === "`") {
      quoteMark = char;
    } else if (char === "{") {
      depth += 1;
    } else if (char === "}") {
      if (depth === 0 && text[index + 1] === "}") return index;
      depth = Math.max(0, depth - 1);
    }
  }
  return -1;
}
