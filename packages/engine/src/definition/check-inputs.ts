import type { DataType, InputDeclaration } from "./types.js";

/** One input that does not fit its declaration, in the words and codes Pydantic uses. */
export interface InputIssue {
  /** The input's json_key. */
  key: string;
  msg: string;
  type: string;
}

/** The declaration fields the check reads (the API's Input objects have them too). */
export type DeclaredInput = Pick<InputDeclaration, "json_key" | "data_type" | "default"> & {
  required?: boolean;
};

type Coerced = { ok: true; value: unknown } | { ok: false; type: string; msg: string };

// Pydantic's lax spellings of booleans.
const TRUE_WORDS = new Set(["true", "1", "yes", "y", "on", "t"]);
const FALSE_WORDS = new Set(["false", "0", "no", "n", "off", "f"]);

/**
 * Checks a run's inputs against the skill's declared inputs, the way lax Pydantic would:
 * strings that parse as the declared type are accepted and converted. Returns the values to
 * use (defaults applied) or every issue. A null value counts as not supplied. `POST /run/` and
 * the `call` step check inputs with it alike.
 */
export function checkInputs(
  declared: DeclaredInput[],
  given: Record<string, unknown> | null | undefined,
): { ok: true; values: Record<string, unknown> } | { ok: false; issues: InputIssue[] } {
  const supplied = given ?? {};
  const issues: InputIssue[] = [];
  const values: Record<string, unknown> = {};
  const known = new Set(declared.map((d) => d.json_key));

  for (const input of declared) {
    // Own keys only: a key such as `constructor` must not find Object.prototype's member.
    const raw = Object.hasOwn(supplied, input.json_key) ? supplied[input.json_key] : undefined;
    const key = input.json_key;
    if (raw === undefined || raw === null) {
      if (input.required === false) {
        if (input.default !== undefined) values[input.json_key] = input.default;
      } else {
        issues.push({ key, msg: "Field required", type: "missing" });
      }
      continue;
    }
    const result = coerce(input.data_type, raw);
    if (result.ok) values[input.json_key] = result.value;
    else issues.push({ key, msg: result.msg, type: result.type });
  }
  for (const key of Object.keys(supplied)) {
    if (!known.has(key)) {
      issues.push({ key, msg: "Extra inputs are not permitted", type: "extra_forbidden" });
    }
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, values };
}

function coerce(type: DataType, raw: unknown): Coerced {
  switch (type) {
    case "string":
    case "tab":
      return typeof raw === "string"
        ? { ok: true, value: raw }
        : { ok: false, type: "string_type", msg: "Input should be a valid string" };
    case "file":
      // Text (an upload id or URL, checked by the server), or a run file as a step sees it
      // (`{file, name, …}`), which a `call` passes on to the skill it calls.
      return typeof raw === "string" || isRunFileValue(raw)
        ? { ok: true, value: raw }
        : { ok: false, type: "string_type", msg: "Input should be a valid string" };
    case "number":
      return toNumber(raw);
    case "boolean":
      return toBoolean(raw);
    case "array":
      return toContainer(raw, Array.isArray, "list_type", "Input should be a valid list");
    case "object":
      return toContainer(raw, isPlainObject, "dict_type", "Input should be a valid dictionary");
  }
}

// What Pydantic v2 (Rust's float parser) reads as a number from text, after trimming whitespace:
// decimal digits with an optional sign, point and exponent, single underscores between digits.
// Not hexadecimal, binary or octal forms, nor "Infinity", which JavaScript's Number() accepts.
const DECIMAL =
  /^[+-]?(?:\d+(?:_\d+)*(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+(?:_\d+)*)(?:[eE][+-]?\d+(?:_\d+)*)?$/;
// Pydantic also reads these, but a run's inputs are JSON, which has no place for them.
const NON_FINITE = /^[+-]?(?:inf|infinity|nan)$/i;

function toNumber(raw: unknown): Coerced {
  if (typeof raw === "number" && Number.isFinite(raw)) return { ok: true, value: raw };
  if (typeof raw === "string") {
    const text = raw.trim();
    if (DECIMAL.test(text)) {
      const n = Number(text.replaceAll("_", ""));
      if (Number.isFinite(n)) return { ok: true, value: n };
    }
    if (NON_FINITE.test(text) || DECIMAL.test(text)) {
      // "inf", or digits too many for a double ("1e999")
      return { ok: false, type: "finite_number", msg: "Input should be a finite number" };
    }
    return {
      ok: false,
      type: "float_parsing",
      msg: "Input should be a valid number, unable to parse string as a number",
    };
  }
  return { ok: false, type: "float_type", msg: "Input should be a valid number" };
}

function toBoolean(raw: unknown): Coerced {
  if (typeof raw === "boolean") return { ok: true, value: raw };
  if (raw === 0 || raw === 1) return { ok: true, value: raw === 1 };
  if (typeof raw === "string") {
    const word = raw.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return { ok: true, value: true };
    if (FALSE_WORDS.has(word)) return { ok: true, value: false };
    return {
      ok: false,
      type: "bool_parsing",
      msg: "Input should be a valid boolean, unable to interpret input",
    };
  }
  return { ok: false, type: "bool_type", msg: "Input should be a valid boolean" };
}

// Arrays and objects may also arrive as JSON text (clients of the Autotab contract send every
// input as a string).
function toContainer(
  raw: unknown,
  accepts: (v: unknown) => boolean,
  type: string,
  msg: string,
): Coerced {
  if (accepts(raw)) return { ok: true, value: raw };
  if (typeof raw === "string") {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (accepts(parsed)) return { ok: true, value: parsed };
    } catch {
      // not JSON: falls through to the type error
    }
  }
  return { ok: false, type, msg };
}

function isRunFileValue(v: unknown): boolean {
  return isPlainObject(v) && typeof (v as { file?: unknown }).file === "string";
}

function isPlainObject(v: unknown): boolean {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
