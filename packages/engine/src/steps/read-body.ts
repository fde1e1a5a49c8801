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
): Promise<string> {
  const tooLarge = (bytes: string) =>
    new BodyTooLarge(
      `${target}: the response body is ${bytes}, over the limit of ${formatBytes(maxBytes)} (${maxBytes} bytes); set max_bytes on the step to read more`,
    );
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge(formatBytes(declared));
  }
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(`more than ${formatBytes(maxBytes)}`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
