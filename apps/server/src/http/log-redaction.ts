/**
 * What replaces a credential in the logs. The access log (request-logging.ts) writes a chosen list
 * of a request's fields, none of them a header that carries a credential; what a caller may put
 * in the address is redacted here.
 */
export const REDACTED = "[Redacted]";

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
