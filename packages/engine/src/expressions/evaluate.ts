import { isRecord, quote } from "../definition/describe.js";
import { messageOf } from "../error-message.js";
import { compileExpression } from "./compile.js";
import { ExpressionError } from "./expression-error.js";
import {
  hasTemplate,
  parseTemplate,
  type TemplateExpression,
  wholeExpression,
} from "./template.js";
import { toJson } from "./to-json.js";
import { toText } from "./to-text.js";
import { totpCode } from "./totp.js";

/**
 * What expressions see: `inputs.url`, `data.price`, `vars.rows`, `steps.fetch.status`, `run.id`,
 * `secrets.api_token`.
 */
export interface ExpressionScope {
  inputs: Record<string, unknown>;
  data: Record<string, unknown>;
  vars: Record<string, unknown>;
  steps: Record<string, unknown>;
  run: object;
  /** The secrets the run was given; absent or `{}` when none. */
  secrets?: Record<string, string>;
}

/** What an evaluation is given besides its scope: the clock, and who masks what it makes secret. */
export interface EvaluationHooks {
  /** Epoch ms, for `$totp`. */
  now(): number;
  /** A value an expression made that is as secret as a secret (a one-time code). */
  secretMade(value: string): void;
}

/** The functions Skillrun adds to JSONata's, bound for one evaluation. */
function functionsOf(hooks: EvaluationHooks | undefined) {
  return {
    totp: (secret: unknown) => {
      const code = totpCode(secret, hooks?.now() ?? Date.now());
      hooks?.secretMade(code);
      return code;
    },
  };
}

/** Evaluates one expression to plain JSON (or undefined); `source` names it in errors. */
async function evaluate(
  expression: string,
  source: string,
  scope: ExpressionScope,
  hooks?: EvaluationHooks,
) {
  try {
    return toJson(await compileExpression(expression).evaluate(scope, functionsOf(hooks)));
  } catch (error) {
    throw new ExpressionError(`cannot evaluate ${source}: ${messageOf(error)}`);
  }
}

/**
 * Resolves the templates in a value: a string that is one `{{ expr }}` becomes the expression's
 * value (null when it gives nothing), other strings with templates become text, and maps and
 * lists are resolved member by member. Anything else is returned as it is.
 */
export async function resolveValue(
  value: unknown,
  scope: ExpressionScope,
  hooks?: EvaluationHooks,
): Promise<unknown> {
  if (typeof value === "string") {
    if (!hasTemplate(value)) return value;
    const parts = parseTemplate(value);
    const whole = wholeExpression(parts);
    if (whole === undefined) return renderParts(parts, scope, hooks);
    return (await evaluate(whole.expression, whole.source, scope, hooks)) ?? null;
  }
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const item of value) items.push(await resolveValue(item, scope, hooks));
    return items;
  }
  if (isRecord(value)) {
    const resolved: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      resolved[key] = await resolveValue(item, scope, hooks);
    }
    return resolved;
  }
  return value;
}

/** Resolves a string's templates to text, even when it is one `{{ expr }}` (a message, a URL). */
export async function renderText(
  text: string,
  scope: ExpressionScope,
  hooks?: EvaluationHooks,
): Promise<string> {
  return hasTemplate(text) ? renderParts(parseTemplate(text), scope, hooks) : text;
}

async function renderParts(
  parts: ReturnType<typeof parseTemplate>,
  scope: ExpressionScope,
  hooks: EvaluationHooks | undefined,
): Promise<string> {
  let text = "";
  for (const part of parts) {
    text +=
      "text" in part
        ? part.text
        : toText(await evaluate(part.expression, part.source, scope, hooks));
  }
  return text;
}

/**
 * The expression of a step's `if`: written bare (`data.n > 1`) or as one template
 * (`{{ data.n > 1 }}`). Throws when it mixes text and templates, which could only ever be text.
 */
export function conditionExpression(condition: string, key = "if"): TemplateExpression {
  if (!hasTemplate(condition)) {
    const expression = condition.trim();
    if (expression === "") throw new ExpressionError(`"${key}" is blank`);
    const start = condition.length - condition.trimStart().length;
    return { expression, source: `{{ ${expression} }}`, start };
  }
  const whole = wholeExpression(parseTemplate(condition));
  if (whole === undefined) {
    throw new ExpressionError(
      `"${key}" takes one expression, bare or in one {{ }}, got ${quote(condition)}`,
    );
  }
  return whole;
}

/** Evaluates a step's `if`; falsy as JSONata's `$boolean` has it (0, "", [], {}, null, nothing). */
export async function evaluateCondition(
  condition: string,
  scope: ExpressionScope,
  key = "if",
  hooks?: EvaluationHooks,
) {
  const { expression, source } = conditionExpression(condition, key);
  const value = await evaluate(expression, source, scope, hooks);
  return (await compileExpression("$boolean($value)").evaluate({}, { value })) === true;
}
