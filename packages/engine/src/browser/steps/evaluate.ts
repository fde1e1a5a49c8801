import type { Frame, JSHandle, Page } from "playwright-core";
import { frame, saveTarget, text } from "../../definition/schema-parts.js";
import { raceAbort } from "../../run/abort.js";
import { formatBytes } from "../../run/limits.js";
import type { StepContext } from "../../steps/step-context.js";
import { defineStepKind } from "../../steps/step-kind.js";
import { firstLine, withoutApiName } from "../error-text.js";
import { isTimeoutError, timeoutError } from "../timeout-error.js";
import type { ElementScope } from "./element-scope.js";
import { stepScope } from "./element-scope.js";
import { missingElement } from "./failures.js";
import { formatWait, NAVIGATION_TIMEOUT_MS } from "./step-page.js";

export type EvaluateAction = string | { expression: string; save_as?: string; frame?: string };

/** What the page says of the result: its JSON, or why it has none. */
type Serialised = { json: string } | { problem: string } | { chars: number };

/**
 * Runs a JavaScript expression in the page (the page's own JavaScript, sandboxed as the page is;
 * never in the server) and gives its value: a promise is waited for (up to 30 s, or the step's
 * timeout); a function is a value like any other, not called. The value must be what JSON holds (null, booleans, finite
 * numbers, strings, lists and plain objects; `undefined` gives null) and fit in the run's data;
 * anything else (an element, a Date, a Map, NaN) fails the step, saying what and where.
 */
export const evaluateStep = defineStepKind<EvaluateAction>({
  schema: {
    type: ["string", "object"],
    minLength: 1,
    required: ["expression"],
    properties: {
      expression: { ...text, description: "A JavaScript expression, run in the page." },
      save_as: saveTarget,
      frame,
    },
    additionalProperties: false,
    description: "A JavaScript expression, or { expression, save_as?, frame? }.",
  },
  browser: true,
  async run(action, context) {
    const written = typeof action === "string" ? { expression: action } : action;
    const expression = await context.render(written.expression);
    context.detail(expression);
    const { scope, timeout } = await stepScope(context, NAVIGATION_TIMEOUT_MS, written.frame);
    const target = await evaluationTarget(scope, timeout, context);
    const limit = context.limits.dataBytes;
    let handle: JSHandle | undefined;
    let read: Serialised;
    try {
      const deadline = Date.now() + timeout;
      handle = await raceAbort(within(target.evaluateHandle(expression), timeout), context.signal);
      const left = Math.max(1, deadline - Date.now());
      read = await raceAbort(within(handle.evaluate(serialise, limit), left), context.signal);
    } catch (error) {
      if (context.signal.aborted) throw error;
      if (isTimeoutError(error)) {
        throw new Error(`evaluate: the expression did not finish within ${formatWait(timeout)}`);
      }
      throw new Error(`evaluate failed: ${withoutApiName(firstLine(error))}`);
    } finally {
      handle?.dispose().catch(() => {});
    }
    if ("problem" in read) throw new Error(`evaluate: ${read.problem}`);
    const tooLarge = (size: number) =>
      new Error(
        `evaluate: the result is ${formatBytes(size)} as JSON, more than the run's data may hold (${formatBytes(limit)})`,
      );
    // A character is a byte at least: past the limit in characters is past it in bytes.
    if ("chars" in read) throw tooLarge(read.chars);
    const bytes = Buffer.byteLength(read.json);
    if (bytes > limit) throw tooLarge(bytes);
    const value: unknown = JSON.parse(read.json);
    context.detail(`→ ${context.preview(value)}`);
    if (written.save_as !== undefined) context.saveAs(written.save_as, value);
    return value;
  },
});

/** The page, or the document of the scope's iframe (which must be one, and be there). */
async function evaluationTarget(
  scope: ElementScope,
  timeout: number,
  context: StepContext,
): Promise<Page | Frame> {
  if (scope.frame === undefined) return scope.page;
  const element = scope.page.locator(scope.frame).first();
  try {
    const handle = await element.elementHandle({ timeout });
    try {
      const inside = await handle.contentFrame();
      if (inside === null) throw new Error(`"${scope.frame}" is not an iframe`);
      return inside;
    } finally {
      await handle.dispose();
    }
  } catch (error) {
    if (context.signal.aborted) throw error;
    if (isTimeoutError(error)) {
      const missing = await missingElement(scope, ":root", timeout);
      if (missing !== undefined) throw missing;
    }
    throw new Error(`evaluate: ${withoutApiName(firstLine(error))}`);
  }
}

/** Rejects with a TimeoutError when `work` takes longer than `ms`; evaluations take no timeout. */
async function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeoutError(`timed out after ${ms}ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs in the page, so it uses nothing from outside itself: the value as JSON when JSON holds it
 * exactly (JSON.stringify would drop functions and turn NaN or a Date into something else
 * silently), else where and what is not; `chars` when the JSON is longer than `limit` characters.
 */
function serialise(value: unknown, limit: number): Serialised {
  const typeName = (item: object): string => {
    const tag = Object.prototype.toString.call(item).slice(8, -1);
    const made = (item as { constructor?: { name?: unknown } }).constructor?.name;
    return tag === "Object" && typeof made === "string" && made !== "" ? made : tag;
  };
  const ancestors: object[] = [];
  const problemIn = (item: unknown, path: string): string | undefined => {
    const where = path === "result" ? "the result" : path;
    if (item === null || typeof item === "string" || typeof item === "boolean") return undefined;
    if (typeof item === "number") {
      return Number.isFinite(item) ? undefined : `${where} is ${String(item)}`;
    }
    if (typeof item !== "object") return `${where} is a ${typeof item}`;
    if (ancestors.includes(item)) return `${where} refers back to an object it is inside`;
    ancestors.push(item);
    try {
      if (Array.isArray(item)) {
        for (let index = 0; index < item.length; index += 1) {
          const inner: unknown = item[index];
          if (inner === undefined) return `${path}[${index}] is undefined`;
          const found = problemIn(inner, `${path}[${index}]`);
          if (found !== undefined) return found;
        }
        return undefined;
      }
      const prototype: unknown = Object.getPrototypeOf(item);
      if (prototype !== Object.prototype && prototype !== null) {
        return `${where} is of type ${typeName(item)}`;
      }
      for (const [key, inner] of Object.entries(item)) {
        // Left out, as JSON leaves out a key whose value is undefined.
        if (inner === undefined) continue;
        const found = problemIn(inner, `${path}.${key}`);
        if (found !== undefined) return found;
      }
      return undefined;
    } finally {
      ancestors.pop();
    }
  };
  const top = value === undefined ? null : value;
  const problem = problemIn(top, "result");
  if (problem !== undefined) return { problem: `${problem}, which JSON cannot hold` };
  const json = JSON.stringify(top);
  return json.length > limit ? { chars: json.length } : { json };
}
