/** What replaces a credential in the logs. */
export const REDACTED = "[Redacted]";

// Headers that carry credentials: the bearer key, a key sent the wrong way, cookies (sent, and
// set by the demo back office's login).
const SECRET_HEADERS = new Set([
  "authorization",
  "proxy-authorization",
  "x-api-key",
  "cookie",
  "set-cookie",
]);

// Query parameters that carry credentials: a key sent in the address by mistake, and the
// signature of a video address (which opens the video to whoever holds it, until it expires).
const SECRET_PARAMETERS = new Set([
  "api_key",
  "apikey",
  "api-key",
  "key",
  "token",
  "access_token",
  "password",
  "secret",
  "signature",
  "sig",
]);

function isSecretParameter(name: string): boolean {
  return SECRET_PARAMETERS.has(name.toLowerCase());
}

/** The request target (`/path?query`) with the value of every credential parameter redacted. */
export function redactUrl(url: string): string {
  const mark = url.indexOf("?");
  if (mark < 0) return url;
  // Split by hand rather than with URLSearchParams, which would re-encode what is kept.
  const pairs = url
    .slice(mark + 1)
    .split("&")
    .map((pair) => {
      const equals = pair.indexOf("=");
      const rawName = equals < 0 ? pair : pair.slice(0, equals);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replaceAll("+", " "));
      } catch {
        // undecodable: judged as written
      }
      return isSecretParameter(name) ? `${rawName}=${REDACTED}` : pair;
    });
  return `${url.slice(0, mark)}?${pairs.join("&")}`;
}

/** A parsed query with the value of every credential parameter redacted. */
export function redactQuery(query: unknown): unknown {
  if (typeof query !== "object" || query === null) return query;
  return Object.fromEntries(
    Object.entries(query).map(([name, value]) => [
      name,
      isSecretParameter(name) ? REDACTED : value,
    ]),
  );
}

/** Request or response headers with every credential header's value redacted. */
export function redactHeaders(
  headers: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (!headers) return headers;
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : value,
    ]),
  );
}
