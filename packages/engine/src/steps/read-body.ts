import { formatBytes } from "../run/limits.js";

/** The step's failure when a response body is larger than it may read. */
export class BodyTooLarge extends Error {
  override readonly name = "BodyTooLarge";
}

/**
 * Reads a response body as text, at most `maxBytes` of it: past the limit the read stops, the
 * connection is let go and the step fails, so a huge or endless body never fills the memory.
 */
export async function readBodyText(
  response: Response,
  maxBytes: number,
  target: string,
  /** What the failure adds after the limit: how to read more, or why not. */
  more: string,
): Promise<string> {
  const tooLarge = (bytes: string) =>
    new BodyTooLarge(
      `${target}: the response body is ${bytes}, over the limit of ${formatBytes(maxBytes)} (${maxBytes} bytes); ${more}`,
    );
  const chunks: Uint8Array[] = [];
  for await (const chunk of limitedBody(response, maxBytes, tooLarge)) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

/** Bytes of a refused answer's body read to quote its start in the step's failure. */
const EXCERPT_BYTES = 4096;

/**
 * The start of a response body as text (its first `bytes`), for a failure to quote; the rest is
 * not read (an error page may be large, and only its first words are shown).
 */
export async function readExcerpt(response: Response, bytes = EXCERPT_BYTES): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  try {
    while (received < bytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      received += value.byteLength;
    }
  } catch {
    // A body cut short still has its start to quote.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, bytes).toString("utf8");
}

/**
 * The chunks of a response body, at most `maxBytes` of them: a body that says it is larger is
 * refused before it is read, one that turns out larger stops there; either way the connection
 * is let go and `tooLarge` (told the size, in words) is thrown.
 */
export async function* limitedBody(
  response: Response,
  maxBytes: number,
  tooLarge: (bytes: string) => Error,
): AsyncGenerator<Uint8Array> {
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge(formatBytes(declared));
  }
  if (response.body === null) return;
  const reader = response.body.getReader();
  let received = 0;
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        return;
      }
      received += value.byteLength;
      if (received > maxBytes) throw tooLarge(`more than ${formatBytes(maxBytes)}`);
      yield value;
    }
  } finally {
    // Past the limit, or whoever reads stopped early (a failed write): the rest is not wanted.
    if (!finished) await reader.cancel().catch(() => undefined);
  }
}
