// Hand-written to match schema.ts; a parsed definition has passed that schema, so these hold.
// Strings in steps may contain `{{ expr }}` templates; they are kept as written.

/** The type of an input value, as the contract names it. */
export type DataType = "string" | "number" | "boolean" | "array" | "object" | "file" | "tab";

/** One declared input of a skill, after normalisation (`id` and `required` always set). */
export interface InputDeclaration {
  /** Defaults to `input_<json_key>`. */
  id: string;
  json_key: string;
  data_type: DataType;
  description?: string;
  /** Defaults to true. */
  required: boolean;
  /** Matches `data_type`; `file` and `tab` defaults are strings. */
  default?: unknown;
}

/** A skill definition as parsed and normalised from YAML. */
export interface SkillDefinition {
  id: string;
  name: string;
  description?: string;
  inputs: InputDeclaration[];
  /** As written, e.g. `2m`; absent when the definition sets none. */
  timeout?: string;
  /** `timeout` in milliseconds, or the default skill timeout. */
  timeoutMs: number;
  steps: Step[];
}

export interface RetryPolicy {
  /** Total attempts, first one included: 1 to 10. */
  attempts: number;
  /** Pause between attempts, a duration. */
  backoff?: string;
}

/** Keys every step may carry beside its action. */
export interface StepOptions {
  id?: string;
  /** An expression; the step is skipped when it is false. */
  if?: string;
  timeout?: string;
  retry?: RetryPolicy;
}

export type StepKind =
  | "set"
  | "log"
  | "wait"
  | "http"
  | "goto"
  | "click"
  | "fill"
  | "press"
  | "select"
  | "wait_for"
  | "extract"
  | "screenshot"
  | "assert_text";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD";
export type ElementState = "visible" | "hidden" | "attached" | "detached";
/** A value typed into a field; numbers and booleans are typed as their text. */
export type FieldValue = string | number | boolean;

export interface HttpRequest {
  /** Defaults to GET. */
  method?: HttpMethod;
  url: string;
  headers?: Record<string, string>;
  /** Sent as a JSON body; never together with `body`. */
  json?: unknown;
  body?: string;
  /** Accepted status code(s); any 2xx when absent. */
  expect_status?: number | number[];
  /** The `data` key that receives the response. */
  save_as?: string;
  timeout?: string;
}

export interface SetStep extends StepOptions {
  set: Record<string, unknown>;
}
export interface LogStep extends StepOptions {
  log: string | { message: string; level?: LogLevel };
}
export interface WaitStep extends StepOptions {
  wait: string;
}
export interface HttpStep extends StepOptions {
  http: HttpRequest;
}
export interface GotoStep extends StepOptions {
  goto: string | { url: string };
}
export interface ClickStep extends StepOptions {
  click: { selector: string };
}
export interface FillStep extends StepOptions {
  fill: { selector: string; value: FieldValue };
}
export interface PressStep extends StepOptions {
  press: { selector?: string; key: string };
}
export interface SelectStep extends StepOptions {
  select: { selector: string; value: FieldValue };
}
export interface WaitForStep extends StepOptions {
  wait_for: { selector: string; state?: ElementState };
}
export interface ExtractStep extends StepOptions {
  extract: { selector: string; save_as: string; attribute?: string; all?: boolean };
}
export interface ScreenshotStep extends StepOptions {
  screenshot: { save_as?: string; full_page?: boolean } | null;
}
export interface AssertTextStep extends StepOptions {
  /** Passes when the element's text contains `text`. */
  assert_text: { selector: string; text: string };
}

/** One step: exactly one action key (see `stepKind`) plus optional `StepOptions`. */
export type Step =
  | SetStep
  | LogStep
  | WaitStep
  | HttpStep
  | GotoStep
  | ClickStep
  | FillStep
  | PressStep
  | SelectStep
  | WaitForStep
  | ExtractStep
  | ScreenshotStep
  | AssertTextStep;
