import { parseDuration } from "../../definition/duration.js";
import { withTimeout } from "../abort.js";
import { checkStatus, responseResult } from "./http-response.js";
import type { StepContext, StepRunner } from "./step-runner.js";

/** How long one request may take when the step sets no `timeout` of its own. */
const DEFAULT_HTTP_TIMEOUT = "30s";

/**
 * Sends a request (templates resolved in url, headers, json and body), checks the status and
 * gives `{ status, headers, body }`, also stored under `save_as` when given.
 */
export const runHttp: StepRunner<"http"> = async (action, context) => {
  const method = action.method ?? "GET";
  const url = await context.render(action.url);
  const target = `${method} ${url}`;
  if (!isHttpAddress(url)) throw new Error(`${target}: not an http:// or https:// address`);
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
  const { response, text } = await send(url, { method, headers, body }, timeout, target, context);
  checkStatus(response.status, action.expect_status, target, text);
  const result = responseResult(response, text, target);
  if (action.save_as !== undefined) context.save({ [action.save_as]: result });
  return result;
};

/** Fetches and reads the whole response within the request's own timeout. */
async function send(
  url: string,
  init: RequestInit,
  timeout: string,
  target: string,
  context: StepContext,
): Promise<{ response: Response; text: string }> {
  const timed = withTimeout(
    context.signal,
    parseDuration(timeout),
    () => new Error(`${target} timed out after ${timeout}`),
  );
  try {
    const response = await fetch(url, { ...init, signal: timed.signal });
    return { response, text: await response.text() };
  } catch (error) {
    if (timed.timedOut()) throw timed.signal.reason;
    // An aborted run or step timeout is told apart by the engine; the message does not matter.
    if (context.signal.aborted) throw error;
    throw new Error(`${target} failed: ${networkCause(error)}`);
  } finally {
    timed.dispose();
  }
}

/** Whether `url` is an http:// or https:// address. */
export function isHttpAddress(url: string): boolean {
  try {
    return ["http:", "https:"].includes(new URL(url).protocol);
  } catch {
    return false;
  }
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
