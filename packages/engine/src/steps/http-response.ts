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

/** Fails unless the status is one of `expected`, or any 2xx when none are given. */
export function checkStatus(
  status: number,
  expected: number | number[] | undefined,
  target: string,
  text: string,
): void {
  const accepted = expected === undefined ? [] : [expected].flat();
  const ok = expected === undefined ? status >= 200 && status < 300 : accepted.includes(status);
  if (ok) return;
  const wanted = expected === undefined ? "2xx" : accepted.join(" or ");
  const excerpt = text.replace(/\s+/g, " ").trim();
  const shown =
    excerpt.length > EXCERPT_LENGTH ? `${excerpt.slice(0, EXCERPT_LENGTH - 3)}...` : excerpt;
  throw new Error(
    `HTTP ${status} from ${target} (expected ${wanted})${shown === "" ? "" : `: ${shown}`}`,
  );
}

/** The response as data: JSON parsed when its content type says so. */
export function responseResult(response: Response, text: string, target: string): HttpResult {
  // Collected in a Map, not an object: a header named `constructor` or `__proto__` must be
  // stored as its value, not find (or replace) a member of Object.prototype.
  const collected = new Map<string, string>();
  for (const [name, value] of response.headers) {
    // Set-Cookie comes once per cookie.
    const earlier = collected.get(name);
    collected.set(name, earlier === undefined ? value : `${earlier}, ${value}`);
  }
  // fromEntries defines each name as an own property, `__proto__` included.
  const headers: Record<string, string> = Object.fromEntries(collected);
  return {
    status: response.status,
    headers,
    body: parseBody(headers["content-type"], text, target),
  };
}

function parseBody(contentType: string | undefined, text: string, target: string): unknown {
  const mediaType = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  const isJson = mediaType === "application/json" || mediaType.endsWith("+json");
  if (!isJson) return text;
  if (text.trim() === "") return null;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${target} sent ${mediaType} that is not valid JSON: ${messageOf(error)}`);
  }
}
