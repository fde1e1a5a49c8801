import { parseDuration } from "../definition/duration.js";
import { ref, text } from "../definition/schema-parts.js";
import { NetworkRefused } from "../network/guard.js";
import { withTimeout } from "../run/abort.js";
import { checkStatus, responseResult } from "./http-response.js";
import { BodyTooLarge, readBodyText } from "./read-body.js";
import type { StepContext } from "./step-context.js";
import { defineStepKind } from "./step-kind.js";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD";

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
  /** Largest response body read, in bytes; the run's limit (10 MB by default) when absent. */
  max_bytes?: number;
}

const httpStatus = { type: "integer", minimum: 100, maximum: 599 };

/** How long one request may take when the step sets no `timeout` of its own. */
const DEFAULT_HTTP_TIMEOUT = "30s";

/**
 * `http`: sends a request (templates resolved in url, headers, json and body), checks the status
 * and gives `{ status, headers, body }`, also stored under `save_as` when given.
 */
export const httpStep = defineStepKind<HttpRequest>({
  schema: {
    type: "object",
    required: ["url"],
    properties: {
      method: { enum: ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"], default: "GET" },
      url: text,
      headers: { type: "object", additionalProperties: { type: "string" } },
      json: { description: "Sent as a JSON body." },
      body: { type: "string", description: "Sent as a raw body." },
      expect_status: {
        type: ["integer", "array"],
        minimum: 100,
        maximum: 599,
        minItems: 1,
        items: httpStatus,
        description: "The accepted status code or codes; any 2xx when absent.",
      },
      save_as: ref("identifier"),
      timeout: ref("duration"),
      max_bytes: {
        type: "integer",
        minimum: 1,
        description:
          "Largest response body read, in bytes; past it the step fails. 10 MB by default.",
      },
    },
    additionalProperties: false,
    // `properties` restated so ajv's strict mode sees the required keys defined.
    not: { required: ["json", "body"], properties: { json: true, body: true } },
  },
  run: runHttp,
});

async function runHttp(action: HttpRequest, context: StepContext): Promise<unknown> {
  const method = action.method ?? "GET";
  const url = await context.render(action.url);
  const target = `${method} ${url}`;
  if (!isHttpAddress(url)) throw new Error(`${target}: not an http:// or https:// address`);
  // Refused before anything is sent; the dispatcher checks again at connect time, every redirect
  // hop included, so what DNS answers later cannot get past either.
  try {
    await context.network.guard.checkUrl(url);
  } catch (error) {
    if (error instanceof NetworkRefused) throw new Error(`${target} refused: ${error.message}`);
    throw new Error(`${target} failed: ${networkCause(error)}`);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(action.headers ?? {})) {
    headers[name] = await context.render(value);
  }
  let body: string | undefined;
  if (action.json !== undefined) {
    body = JSON.stringify(await context.resolve(action.json));
    if (!Object.keys(headers).some((name) => name.toLowerCase() === "content-type")) {
      headers["content-type"] = "application/json";
    }
  } else if (action.body !== undefined) {
    body = await context.render(action.body);
  }
  const timeout = action.timeout ?? DEFAULT_HTTP_TIMEOUT;
  const maxBytes = action.max_bytes ?? context.limits.httpResponseBytes;
  const { response, text } = await send(
    url,
    { method, headers, body },
    { timeout, maxBytes },
    target,
    context,
  );
  const answered = answeredBy(response, target);
  checkStatus(response.status, action.expect_status, answered, text);
  const result = responseResult(response, text, answered);
  if (action.save_as !== undefined) context.save({ [action.save_as]: result });
  return result;
}

/** Fetches and reads the whole response (up to `maxBytes`) within the request's own timeout. */
async function send(
  url: string,
  init: RequestInit,
  { timeout, maxBytes }: { timeout: string; maxBytes: number },
  target: string,
  context: StepContext,
): Promise<{ response: Response; text: string }> {
  const timed = withTimeout(
    context.signal,
    parseDuration(timeout),
    () => new Error(`${target} timed out after ${timeout}`),
  );
  try {
    const dispatcher = context.network.dispatcher();
    // Node's fetch takes an undici dispatcher; its RequestInit type does not say so.
    const response = await fetch(url, { ...init, signal: timed.signal, dispatcher } as RequestInit);
    return { response, text: await readBodyText(response, maxBytes, answeredBy(response, target)) };
  } catch (error) {
    if (error instanceof BodyTooLarge) throw error;
    if (timed.timedOut()) throw timed.signal.reason;
    // An aborted run or step timeout is told apart by the engine; the message does not matter.
    if (context.signal.aborted) throw error;
    const refused = refusalOf(error);
    if (refused !== undefined) throw new Error(`${target} refused: ${refused.message}`);
    throw new Error(`${target} failed: ${networkCause(error)}`);
  } finally {
    timed.dispose();
  }
}

/**
 * What a message about the response names: the request, or after redirects the address that
 * answered, since that is where the status or body came from; the request is named after it.
 */
function answeredBy(response: Response, target: string): string {
  return response.redirected ? `${response.url} (redirected from ${target})` : target;
}

/** Whether `url` is an http:// or https:// address. */
export function isHttpAddress(url: string): boolean {
  try {
    return ["http:", "https:"].includes(new URL(url).protocol);
  } catch {
    return false;
  }
}

/** The guard's refusal behind a fetch failure (e.g. a redirect to a private address). */
function refusalOf(error: unknown): NetworkRefused | undefined {
  let cause: unknown = error;
  for (let depth = 0; depth < 4 && cause instanceof Error; depth += 1) {
    if (cause instanceof NetworkRefused) return cause;
    cause = cause.cause;
  }
  return undefined;
}

/** fetch says only "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND, …) is in its cause. */
function networkCause(error: unknown): string {
  let cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
  // Trying several addresses of a host fails with one error per address.
  if (cause instanceof AggregateError && cause.errors.length > 0) cause = cause.errors[0];
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return cause.message || code || cause.name;
  }
  return String(cause);
}
