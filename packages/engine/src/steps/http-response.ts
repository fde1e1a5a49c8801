import { messageOf } from "../error-message.js";

/** What an `http` step gives, and stores under `save_as`. */
export interface HttpResult {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** Parsed when the response says it is JSON (null when empty), else the text. */
  body: unknown;
}

const EXCERPT_LENGTH = 200;

/** A response the step does not accept (its status, a body that is not what it says). */
export class ResponseRejected extends Error {
  override readonly name = "ResponseRejected";
}

/** Whether the status is one of `expected`, or any 2xx when none are given. */
export function statusAccepted(status: number, expected: number | number[] | undefined): boolean {
  if (expected === undefined) return status >= 200 && status < 300;
  return [expected].flat().includes(status);
}

/** Fails unless the status is one of `expected`, or any 2xx when none are given. */
export function checkStatus(
  status: number,
  expected: number | number[] | undefined,
  target: string,
  text: string,
): void {
  if (statusAccepted(status, expected)) return;
  const accepted = expected === undefined ? [] : [expected].flat();
  const wanted = expected === undefined ? "2xx" : describeStatuses(accepted);
  const excerpt = text.replace(/\s+/g, " ").trim();
  const shown =
    excerpt.length > EXCERPT_LENGTH ? `${excerpt.slice(0, EXCERPT_LENGTH - 3)}...` : excerpt;
  throw new ResponseRejected(
    `HTTP ${status} from ${target} (expected ${wanted})${shown === "" ? "" : `: ${shown}`}`,
  );
}

/** `2xx or 3xx` for every status from 200 to 399, else the statuses one by one. */
function describeStatuses(statuses: number[]): string {
  const all = (from: number) => Array.from({ length: 100 }, (_, index) => from + index);
  const ranges = [2, 3, 4, 5].filter((hundred) =>
    all(hundred * 100).every((status) => statuses.includes(status)),
  );
  const single = statuses.filter((status) => !ranges.includes(Math.floor(status / 100)));
  return [...ranges.map((hundred) => `${hundred}xx`), ...single].join(" or ");
}

/** The response as data: JSON parsed when its content type says so. */
export function responseResult(response: Response, text: string, target: string): HttpResult {
  const headers = headersOf(response);
  return {
    status: response.status,
    headers,
    body: parseBody(headers["content-type"], text, target),
  };
}

/** The response's headers: lower-case names, repeated ones joined with ", ". */
export function headersOf(response: Response): Record<string, string> {
  // Collected in a Map, not an object: a header named `constructor` or `__proto__` must be
  // stored as its value, not find (or replace) a member of Object.prototype.
  const collected = new Map<string, string>();
  for (const [name, value] of response.headers) {
    // Set-Cookie comes once per cookie.
    const earlier = collected.get(name);
    collected.set(name, earlier === undefined ? value : `${earlier}, ${value}`);
  }
  // fromEntries defines each name as an own property, `__proto__` included.
  return Object.fromEntries(collected);
}

function parseBody(contentType: string | undefined, text: string, target: string): unknown {
  const mediaType = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  const isJson = mediaType === "application/json" || mediaType.endsWith("+json");
  if (!isJson) return text;
  if (text.trim() === "") return null;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ResponseRejected(
      `${target} sent ${mediaType} that is not valid JSON: ${messageOf(error)}`,
    );
  }
}
