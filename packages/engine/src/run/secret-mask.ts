import type { SkillDefinition } from "../definition/types.js";
import type { EngineEvent, ExecuteSkillOptions, ExecutionResult } from "./types.js";

/** What a secret value is replaced by wherever it would leave the engine. */
export const SECRET_MASK = "***";

/**
 * The secret values of one run, and the masking of them: every occurrence of a value inside any
 * string of a JSON value (keys included) becomes `***`. Values are matched as given and in the
 * two forms a step most often writes them in: JSON-escaped (inside a JSON text, e.g. a response
 * body) and percent-encoded (inside an address). A value an expression transformed
 * (`$uppercase(secrets.x)`, a base64 of it) is not recognised.
 */
export class SecretMask {
  private readonly values = new Set<string>();
  // Longest first, so a value that contains another is masked whole; rebuilt when one is added.
  private ordered: string[] = [];

  /** Masks `value` from now on; the empty string is ignored (it occurs everywhere). */
  add(value: string): void {
    for (const form of formsOf(value)) {
      if (form === "" || this.values.has(form)) continue;
      this.values.add(form);
      this.ordered = [...this.values].sort((a, b) => b.length - a.length);
    }
  }

  /** Masks the values `inputs` gives the inputs `definition` declares `secret: true`. */
  addSecretInputs(definition: SkillDefinition, inputs: Record<string, unknown>): void {
    for (const input of definition.inputs) {
      const value = inputs[input.json_key];
      // The format makes a secret input a string.
      if (input.secret === true && typeof value === "string") this.add(value);
    }
  }

  /** How many forms of values are masked; 0 when the run has no secrets. */
  get size(): number {
    return this.values.size;
  }

  /** The text with every secret value in it replaced by `***`. */
  maskText(text: string): string {
    let masked = text;
    for (const value of this.ordered) {
      if (masked.includes(value)) masked = masked.split(value).join(SECRET_MASK);
    }
    return masked;
  }

  /** A copy of a JSON value (objects, arrays, strings, …) with every string masked. */
  mask<T>(value: T): T {
    if (this.ordered.length === 0) return value;
    return this.maskValue(value) as T;
  }

  private maskValue(value: unknown): unknown {
    if (typeof value === "string") return this.maskText(value);
    if (Array.isArray(value)) return value.map((item) => this.maskValue(item));
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [this.maskText(key), this.maskValue(item)]),
      );
    }
    return value;
  }
}

function formsOf(value: string): string[] {
  const jsonEscaped = JSON.stringify(value).slice(1, -1);
  let percentEncoded = value;
  try {
    percentEncoded = encodeURIComponent(value);
  } catch {
    // an unpaired surrogate has no percent-encoding
  }
  return [value, jsonEscaped, percentEncoded];
}

// Parts of an event that say where and when, never what a step produced: left as they are, so a
// secret that happens to equal "log" or a step id does not garble the event. Every other part,
// including any added later, is masked.
const STRUCTURAL_EVENT_KEYS = new Set([
  "type",
  "at",
  "step",
  "attempt",
  "duration_ms",
  "will_retry",
  "level",
  "reason",
]);

/**
 * The one place masking is applied: `options` with a masker that knows the run's secrets (the
 * values of `options.secrets` and of the inputs declared `secret: true`), whose `onEvent` is
 * told only masked events, and the function that masks the execution's result. A masker given
 * in `options` is used (and added to), so a caller can mask what it reports itself with it.
 */
export function maskedExecution(options: ExecuteSkillOptions): {
  options: ExecuteSkillOptions & { masker: SecretMask };
  result: (result: ExecutionResult) => ExecutionResult;
} {
  const masker = options.masker ?? new SecretMask();
  for (const value of Object.values(options.secrets ?? {})) masker.add(value);
  masker.addSecretInputs(options.definition, options.inputs);
  const { onEvent } = options;
  return {
    options: {
      ...options,
      masker,
      onEvent: (event) => onEvent(maskParts(masker, event, STRUCTURAL_EVENT_KEYS) as EngineEvent),
    },
    result: (result) =>
      maskParts(masker, result, new Set(["outcome", "step", "reason"])) as ExecutionResult,
  };
}

function maskParts(masker: SecretMask, value: object, kept: Set<string>): object {
  if (masker.size === 0) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, part]) => [key, kept.has(key) ? part : masker.mask(part)]),
  );
}
