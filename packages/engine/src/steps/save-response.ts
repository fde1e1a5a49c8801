import {
  declaredContentType,
  type FileResult,
  fileResult,
  suggestedName,
} from "../files/file-result.js";
import type { RunFiles } from "../files/run-files.js";
import { formatBytes } from "../run/limits.js";
import type { Fetched } from "./fetch-hops.js";
import { BodyTooLarge, limitedBody } from "./read-body.js";

/**
 * Streams a response's body into a run file named after `wanted` (the response's suggested name
 * when absent), at most `maxBytes` of it: past that the transfer stops, nothing is kept and the
 * step fails. The result's `name` is the name the response suggests.
 */
export async function saveResponse(
  fetched: Fetched,
  files: RunFiles,
  wanted: string | undefined,
  maxBytes: number,
  target: string,
): Promise<FileResult> {
  const { response } = fetched;
  const name = suggestedName(response.headers.get("content-disposition"), fetched.url);
  const tooLarge = (bytes: string) =>
    new BodyTooLarge(
      `${target}: the file is ${bytes}, over the limit of ${formatBytes(maxBytes)} (${maxBytes} bytes) for a file a run fetches`,
    );
  const stored = await files.receive(
    wanted ?? name,
    limitedBody(response, maxBytes, tooLarge),
    declaredContentType(response.headers.get("content-type")),
  );
  return fileResult(stored, name);
}
