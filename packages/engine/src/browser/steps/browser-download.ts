import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Download, Page } from "playwright-core";
import { formatBytes } from "../../run/limits.js";
import { firstLine, withoutApiName } from "../error-text.js";
import { formatWait } from "./step-page.js";

/** How often a download under way is measured against the limit. */
const MEASURE_EVERY_MS = 200;

/** The download's start did not come within the wait. */
export class NoDownload extends Error {
  override readonly name = "NoDownload";
}

/** A download stopped by the step: too large, or too slow. */
class DownloadStopped extends Error {
  override readonly name = "DownloadStopped";
}

/**
 * The next download any page of the browser starts (a link may open it in a new tab), or a
 * NoDownload after `timeoutMs`; rejects with the signal's reason when it aborts. Call it before
 * the click that starts the download, so that a fast one is not missed.
 */
export function nextDownload(
  page: Page,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<Download> {
  const browserContext = page.context();
  return new Promise((resolve, reject) => {
    const watched = new Set<Page>();
    const settle = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      browserContext.off("page", watch);
      for (const one of watched) one.off("download", onDownload);
    };
    const onDownload = (download: Download) => {
      settle();
      resolve(download);
    };
    const watch = (one: Page) => {
      watched.add(one);
      one.on("download", onDownload);
    };
    const onAbort = () => {
      settle();
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      settle();
      reject(new NoDownload(`no download started within ${formatWait(timeoutMs)}`));
    }, timeoutMs);
    for (const one of browserContext.pages()) watch(one);
    browserContext.on("page", watch);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** What a download must stay within. */
export interface DownloadBounds {
  /** The browser's downloads folder, where the file grows while it downloads. */
  dir: string;
  /** Names in `dir` before the download started: not this download's. */
  before: ReadonlySet<string>;
  maxBytes: number;
  /** When the download must be complete (ms since the epoch). */
  deadline: number;
  /** The step's total wait, as the message says it. */
  waited: number;
  signal: AbortSignal;
}

/**
 * Waits for the download to complete and gives the path of its file. The file is measured as it
 * grows: past `maxBytes`, or past the deadline, or when the step is aborted, the download is
 * cancelled (so the browser stops fetching it) and the step fails saying which.
 */
export async function completedDownload(
  download: Download,
  bounds: DownloadBounds,
): Promise<string> {
  const source = download.url();
  let stop: (error: unknown) => void = () => {};
  const stopped = new Promise<never>((_, reject) => {
    stop = reject;
  });
  const cancel = (error: unknown) => {
    download.cancel().catch(() => undefined);
    stop(error);
  };
  const onAbort = () => cancel(bounds.signal.reason);
  const tooLarge = (bytes: number) =>
    new DownloadStopped(
      `the download of ${source} is ${bytes > bounds.maxBytes ? `more than ${formatBytes(bounds.maxBytes)}` : formatBytes(bytes)}, over the limit of ${formatBytes(bounds.maxBytes)} (${bounds.maxBytes} bytes) for a file a run fetches`,
    );
  const measure = setInterval(() => {
    newBytes(bounds.dir, bounds.before).then(
      (bytes) => {
        if (bytes > bounds.maxBytes) cancel(tooLarge(bytes));
      },
      () => undefined,
    );
  }, MEASURE_EVERY_MS);
  const late = setTimeout(
    () =>
      cancel(
        new DownloadStopped(
          `the download of ${source} did not finish within ${formatWait(bounds.waited)}; give the step a longer timeout for a large file`,
        ),
      ),
    Math.max(0, bounds.deadline - Date.now()),
  );
  if (bounds.signal.aborted) onAbort();
  else bounds.signal.addEventListener("abort", onAbort, { once: true });
  try {
    const path = await Promise.race([download.path(), stopped]);
    // Complete between two measures: measured once more, whole.
    const { size } = await stat(path);
    if (size > bounds.maxBytes) throw tooLarge(size);
    return path;
  } catch (error) {
    if (bounds.signal.aborted) throw bounds.signal.reason;
    if (error instanceof DownloadStopped) throw error;
    const failure = await download.failure().catch(() => null);
    throw new Error(
      `the download of ${source} failed: ${failure ?? withoutApiName(firstLine(error))}`,
    );
  } finally {
    clearInterval(measure);
    clearTimeout(late);
    bounds.signal.removeEventListener("abort", onAbort);
  }
}

/** Bytes of the files in `dir` that were not there before: the download under way. */
async function newBytes(dir: string, before: ReadonlySet<string>): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!entry.isFile() || before.has(entry.name)) continue;
    total += await stat(join(dir, entry.name)).then(
      (found) => found.size,
      () => 0,
    );
  }
  return total;
}

/** The names in the downloads folder now. */
export async function namesIn(dir: string): Promise<Set<string>> {
  return new Set(await readdir(dir));
}
