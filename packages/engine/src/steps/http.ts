import { browserCookies } from "../browser/browser-cookies.js";
import { parseDuration } from "../definition/duration.js";
import { ref, saveTarget, text } from "../definition/schema-parts.js";
import type { FileResult } from "../files/file-result.js";
import { filesOf } from "../files/files-of.js";
import type { RunFiles } from "../files/run-files.js";
import { NetworkRefused } from "../network/guard.js";
import { formatBytes } from "../run/limits.js";
import type { Fetched } from "./fetch-hops.js";
import { exchange, networkCause } from "./http-exchange.js";
import {
  checkStatus,
  type HttpResult,
  headersOf,
  responseResult,
  statusAccepted,
} from "./http-response.js";
import { readBodyText, readExcerpt } from "./read-body.js";
import { saveResponse } from "./save-response.js";
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
  /** Largest response body read, in bytes; at most the run's limit (10 MB by default), the default. */
  max_bytes?: number;
  /** `browser`: sends the run's browser's cookies for each address asked. */
  cookies?: "browser";
  /** Follows redirects (true, the default); false gives the 3xx answer itself. */
  follow_redirects?: boolean;
  /** Streams the body into a run file of (about) this name instead of reading it. */
  save_to_file?: string;
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
      save_as: saveTarget,
      timeout: ref("duration"),
      max_bytes: {
        type: "integer",
        minimum: 1,
        description:
          "Largest response body read, in bytes; past it the step fails. At most the run's limit (10 MB by default), which is also the default; with save_to_file, at most the run's file limit (100 MB by default).",
      },
      cookies: {
        enum: ["browser"],
        description:
          "`browser` sends the cookies the run's browser holds for each address asked (a session signed in with browser steps).",
      },
      follow_redirects: {
        type: "boolean",
        default: true,
        description:
          "false gives a redirect's answer itself (its `location` header) rather than following it; 3xx statuses are then accepted.",
      },
      save_to_file: {
        ...text,
        description:
          "Streams the body into a run file of this name instead of reading it; the result's `file` describes it.",
      },
    },
    additionalProperties: false,
    // `properties` restated so ajv's strict mode sees the required keys defined.
    not: { required: ["json", "body"], properties: { json: true, body: true } },
  },
  // GET and HEAD only read; any other method may change something on the other side.
  effects: (action) => !READ_ONLY_METHODS.has(action.method ?? "GET"),
  run: runHttp,
});

const READ_ONLY_METHODS: ReadonlySet<HttpMethod> = new Set(["GET", "HEAD"]);

async function runHttp(action: HttpRequest, context: StepContext): Promise<unknown> {
  const method = action.method ?? "GET";
  const url = await context.render(action.url);
  const target = `${method} ${url}`;
  context.detail(target);
  if (!isHttpAddress(url)) throw new Error(`${target}: not an http:// or https:// address`);
  // Checked before anything is sent: a step that cannot do what it says fails at once.
  const cookies = action.cookies === "browser" ? browserCookies(context, target) : undefined;
  const files = action.save_to_file === undefined ? undefined : filesOf(context);
  // Refused before anything is sent; every hop is checked again, and the dispatcher checks at
  // connect time, so neither a redirect nor what DNS answers later can get past either.
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
  // A traced run's request joins its trace, unless the skill sends a traceparent of its own.
  if (context.traceparent !== undefined && !hasHeader(headers, "traceparent")) {
    headers.traceparent = context.traceparent;
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
  const follow = action.follow_redirects ?? true;
  const saveTo =
    files === undefined || action.save_to_file === undefined
      ? undefined
      : { files, name: await context.render(action.save_to_file) };
  const timeout = action.timeout ?? DEFAULT_HTTP_TIMEOUT;
  const result = await exchange(
    url,
    { method, headers, body, follow, cookies },
    { ms: parseDuration(timeout), text: timeout },
    target,
    context,
    (fetched, answered) => answer(action, fetched, answered, saveTo, context),
  );
  context.detail(`${target} → ${answerDetail(result)}`);
  if (action.save_as !== undefined) context.saveAs(action.save_as, result);
  return result;
}

/** An answer as the step's detail says it: its status, and the run file its body went to. */
function answerDetail(result: HttpResult | HttpFileResult): string {
  const saved = "file" in result ? `, ${result.file.file} (${formatBytes(result.file.bytes)})` : "";
  return `${result.status}${saved}`;
}

/** What an `http` step with `save_to_file` gives: the body is in the run file `file`. */
export interface HttpFileResult {
  status: number;
  headers: Record<string, string>;
  file: FileResult;
}

/**
 * Checks the answer's status and reads its body, or streams it into a run file with
 * `save_to_file` (then the run's file limit applies, not the body limit).
 */
async function answer(
  action: HttpRequest,
  fetched: Fetched,
  answered: string,
  saveTo: { files: RunFiles; name: string } | undefined,
  context: StepContext,
): Promise<HttpResult | HttpFileResult> {
  const { response } = fetched;
  // Without follow_redirects a redirect is the answer asked for, not a failure.
  const follow = action.follow_redirects ?? true;
  const accepted = action.expect_status ?? (follow ? undefined : SUCCESS_OR_REDIRECT);
  if (!statusAccepted(response.status, accepted)) {
    checkStatus(response.status, accepted, answered, await readExcerpt(response));
  }
  if (saveTo === undefined) {
    // The run's limit is a ceiling: a body read into data is held in memory, so a step may ask
    // for less, never for more.
    const ceiling = context.limits.httpResponseBytes;
    const limit = Math.min(action.max_bytes ?? ceiling, ceiling);
    const more =
      limit < ceiling
        ? "set max_bytes on the step to read more"
        : "the most a run reads into memory; save_to_file keeps a larger body as a run file";
    return responseResult(response, await readBodyText(response, limit, answered, more), answered);
  }
  const fileLimit = Math.min(
    action.max_bytes ?? Number.POSITIVE_INFINITY,
    context.limits.downloadBytes,
  );
  const file = await saveResponse(fetched, saveTo.files, saveTo.name, fileLimit, answered);
  return { status: response.status, headers: headersOf(response), file };
}

/** Statuses `follow_redirects: false` accepts when the step expects none: 2xx and 3xx. */
const SUCCESS_OR_REDIRECT = Array.from({ length: 200 }, (_, index) => 200 + index);

/** Whether `url` is an http:// or https:// address. */
export function isHttpAddress(url: string): boolean {
  try {
    return ["http:", "https:"].includes(new URL(url).protocol);
  } catch {
    return false;
  }
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}
