import { readFileSync } from "node:fs";
import { type OverLimitWatch, watchOverLimit } from "@skillrun/engine";

/**
 * How often a run process's memory is measured while it runs. Buffers (a response body being
 * read) live outside the V8 heap, so `--max-old-space-size` alone never stops them; on loopback
 * a body grows by a few hundred MB in this time at most.
 */
export const RUN_MEMORY_CHECK_MS = 100;

/**
 * The memory a run process holds of its own: its resident anonymous pages (V8's heap, buffers,
 * native allocations) — resident set size without the file-backed pages of the Node binary and
 * its libraries, which every Node process shares and no run can grow. Undefined once the process
 * is gone, or where /proc cannot tell (not Linux). Read synchronously: the kernel answers at
 * once, where the promise API's four trips to the thread pool per read, ten times a second per
 * run, took 7 % of the server's CPU during browser runs
 * (docs/decisions/0067-browser-runs-cost-their-browser.md).
 */
export function residentBytesNow(pid: number): number | undefined {
  try {
    return ownBytes(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return undefined;
  }
}

function ownBytes(status: string): number | undefined {
  // RssAnon since Linux 4.5; before it, the whole resident set.
  return kilobytes(status, "RssAnon") ?? kilobytes(status, "VmRSS");
}

function kilobytes(text: string, field: string): number | undefined {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(text);
  return match === null ? undefined : Number(match[1]) * 1024;
}

/**
 * Measures the process `pid` every RUN_MEMORY_CHECK_MS; the first time it holds more than
 * `limitBytes`, stops and tells `onExceeded` (the caller kills it). Measuring that fails for
 * good (no /proc) leaves only the heap limit, and `unmeasured` says so once.
 */
export function watchRunMemory(
  pid: number,
  limitBytes: number,
  onExceeded: (bytes: number) => void,
  unmeasured: () => void,
): OverLimitWatch {
  return watchOverLimit(
    async () => {
      const bytes = residentBytesNow(pid);
      if (bytes === undefined) throw new Error(`no memory figure for process ${pid}`);
      return { bytes };
    },
    { everyMs: RUN_MEMORY_CHECK_MS, limitBytes },
    ({ bytes }) => onExceeded(bytes),
    unmeasured,
  );
}
