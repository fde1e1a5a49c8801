import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  createNetworkGuard,
  formatBytes,
  guardedDispatcher,
  type NetworkPolicy,
  NetworkRefused,
} from "@skillrun/engine";
import { PRIVATE_FILE_MODE } from "../private-files.js";

/** A fetch that failed, in words that name the request and why (refused, status, size, time). */
export class FetchFailed extends Error {
  override readonly name = "FetchFailed";
}

/** What a fetched file's response said about it. */
export interface FetchedFile {
  /** The response's Content-Type, if it gave one. */
  contentType: string | null;
  /** The name the response or the URL suggests (Content-Disposition, else the path's last part). */
  suggestedName: string | null;
}

export interface FetchOptions {
  /** Where the run may connect: the URL and every redirect are judged by it. */
  network: NetworkPolicy;
  /** Largest body kept; past it the fetch fails. */
  maxBytes: number;
  timeoutMs: number;
  /** The run's own stop (cancel, time limit, shutdown). */
  signal: AbortSignal;
}

/**
 * GETs `url` into the file `path` as a run would: through the run's network policy (the SSRF
 * guard judges the address, and every connection, redirects included, goes only where it
 * allows), within `timeoutMs` and at most `maxBytes`. Throws FetchFailed saying what went wrong,
 * naming the request; the run's own abort is rethrown as it is. Nothing is left at `path` on a
 * failure.
 */
export async function fetchUrlToFile(
  url: string,
  path: string,
  options: FetchOptions,
): Promise<FetchedFile> {
  const target = `GET ${url}`;
  const guard = createNetworkGuard(options.network);
  try {
    await guard.checkUrl(url);
  } catch (error) {
    if (error instanceof NetworkRefused)
      throw new FetchFailed(`${target} refused: ${error.message}`);
    throw new FetchFailed(`${target} failed: ${causeOf(error)}`);
  }
  const dispatcher = guardedDispatcher(guard);
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([options.signal, timeout]);
  try {
    // Node's fetch takes an undici dispatcher; its RequestInit type does not say so.
    const response = await fetch(url, { signal, dispatcher, redirect: "follow" } as RequestInit);
    const answered = response.redirected ? `${response.url} (redirected from ${target})` : target;
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new FetchFailed(`${answered} answered HTTP ${response.status}`);
    }
    const tooLarge = (size: string) =>
      new FetchFailed(
        `${answered}: the file is ${size}, over the limit of ${formatBytes(options.maxBytes)} (${options.maxBytes} bytes)`,
      );
    const declared = Number(response.headers.get("content-length") ?? Number.NaN);
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw tooLarge(formatBytes(declared));
    }
    let received = 0;
    const limit = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        received += chunk.length;
        if (received > options.maxBytes)
          done(tooLarge(`more than ${formatBytes(options.maxBytes)}`));
        else done(null, chunk);
      },
    });
    const body = response.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
    await pipeline(
      Readable.fromWeb(body as import("node:stream/web").ReadableStream<Uint8Array>),
      limit,
      createWriteStream(path, { mode: PRIVATE_FILE_MODE }),
    );
    return {
      contentType: response.headers.get("content-type"),
      suggestedName:
        nameFrom(response.headers.get("content-disposition")) ?? lastPart(response.url),
    };
  } catch (error) {
    await rm(path, { force: true });
    if (options.signal.aborted) throw error;
    if (timeout.aborted) {
      throw new FetchFailed(`${target} timed out after ${Math.round(options.timeoutMs / 1000)} s`);
    }
    if (error instanceof FetchFailed) throw error;
    const refused = refusalOf(error);
    if (refused !== undefined) throw new FetchFailed(`${target} refused: ${refused.message}`);
    throw new FetchFailed(`${target} failed: ${causeOf(error)}`);
  } finally {
    await dispatcher.destroy().catch(() => undefined);
  }
}

/** The file name a Content-Disposition header gives (`filename*` first), if any. */
function nameFrom(header: string | null): string | null {
  if (header === null) return null;
  const extended = /filename\*\s*=\s*UTF-8''([^;\s]+)/i.exec(header);
  if (extended?.[1]) {
    try {
      return decodeURIComponent(extended[1]);
    } catch {
      // not percent-encoding: the plain filename, if any, is read instead
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(header);
  const name = plain?.[1]?.replace(/\\(.)/g, "$1") ?? plain?.[2];
  return name === undefined || name === "" ? null : name;
}

/** The last part of a URL's path, decoded, or null when the path ends in `/`. */
function lastPart(url: string): string | null {
  const last = new URL(url).pathname.split("/").pop() ?? "";
  try {
    return decodeURIComponent(last) || null;
  } catch {
    return last || null;
  }
}

/** The guard's refusal behind a fetch failure (e.g. a redirect to a private address). */
function refusalOf(error: unknown): NetworkRefused | undefined {
  let cause: unknown = error;
  for (let depth = 0; depth < 4 && cause instanceof Error; depth += 1) {
    if (cause instanceof NetworkRefused) return cause;
    cause = cause.cause;
  }
  return undefined;
}

/** fetch says only "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND, …) is in its cause. */
function causeOf(error: unknown): string {
  let cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
  if (cause instanceof AggregateError && cause.errors.length > 0) cause = cause.errors[0];
  if (cause instanceof Error) {
    return cause.message || (cause as NodeJS.ErrnoException).code || cause.name;
  }
  return String(cause);
}
