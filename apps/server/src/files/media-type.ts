import { lookup } from "mime-types";

// A media type as RFC 9110 writes it: type/subtype, then `; name=value` parameters (token or
// quoted string). Nothing else may reach a Content-Type header the server sends.
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const MEDIA_TYPE = new RegExp(
  `^${TOKEN}/${TOKEN}(?:[ \\t]*;[ \\t]*${TOKEN}=(?:${TOKEN}|"(?:[^"\\\\\\x00-\\x1f\\x7f]|\\\\[\\x20-\\x7e])*"))*$`,
);

/** The longest media type kept; anything longer is treated as none. */
const MAX_MEDIA_TYPE = 255;

const UNKNOWN = "application/octet-stream";

/** Whether `text` is a well-formed media type that may go into a Content-Type header. */
export function isMediaType(text: string): boolean {
  return text.length <= MAX_MEDIA_TYPE && MEDIA_TYPE.test(text);
}

/**
 * The content type a file is kept with: `given` (a multipart part's or a response's own) when it
 * is a well-formed, specific one; else the one its name's extension suggests; else
 * `application/octet-stream`.
 */
export function contentTypeFor(given: string | null | undefined, name: string): string {
  const trimmed = given?.trim() ?? "";
  if (trimmed !== "" && trimmed.toLowerCase() !== UNKNOWN && isMediaType(trimmed)) return trimmed;
  return lookup(name) || UNKNOWN;
}

/** A stored content type safe to send: itself when well-formed, else `application/octet-stream`. */
export function servableContentType(stored: string): string {
  return isMediaType(stored) ? stored : UNKNOWN;
}
