import { watchOverLimit } from "../run/watch-over-limit.js";
import { firstLine } from "./error-text.js";
import { sessionMeter } from "./session-memory.js";

/** How often the browser's memory is measured: a page allocating fast gains ~1 GB in this time. */
export const MEMORY_CHECK_MS = 500;

const MB = 1024 * 1024;
const GB = 1024 * MB;

/** Why the watchdog ended a browser: its processes used more memory than the run may. */
export class BrowserMemoryExceeded extends Error {
  override readonly name = "BrowserMemoryExceeded";

  constructor(
    readonly usedBytes: number,
    readonly limitBytes: number,
  ) {
    // The limit as it was configured (in MB); the use as a person would say it.
    super(
      `the browser used ${amount(usedBytes)}, over its limit of ${Math.round(limitBytes / MB)} MB`,
    );
  }
}

export interface MemoryWatchdog {
  /** Stops measuring; the browser is left alone. */
  stop(): void;
}

/**
 * Measures the processes of the browser led by `leader` every MEMORY_CHECK_MS; once they use more
 * than `limitBytes` together, kills every one of them and tells `onExceeded` (once). The kill
 * comes after the verdict, so that whoever aborts the run on it does so before the run's browser
 * step fails on the vanished browser.
 */
export function watchMemory(
  leader: number,
  limitBytes: number,
  onExceeded: (error: BrowserMemoryExceeded) => void,
  problem: (message: string) => void,
): MemoryWatchdog {
  const meter = sessionMeter(leader);
  return watchOverLimit(
    async () => {
      const measured = await meter.measure();
      // A verdict rests on every process's PSS read at that moment, never on an estimate.
      return measured.bytes > limitBytes && measured.estimated
        ? meter.measure({ exact: true })
        : measured;
    },
    { everyMs: MEMORY_CHECK_MS, limitBytes },
    ({ pids, bytes }) => {
      onExceeded(new BrowserMemoryExceeded(bytes, limitBytes));
      kill(leader, pids);
    },
    (error) => problem(`browser memory not measured: ${firstLine(error)}`),
  );
}

/** Kills the browser's process group, then each of its processes left outside that group. */
function kill(leader: number, pids: number[]): void {
  for (const target of [-leader, ...pids]) {
    try {
      process.kill(target, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/** 312 MB, 1.2 GB: as a person would say it. */
function amount(bytes: number): string {
  return bytes >= GB ? `${(bytes / GB).toFixed(1)} GB` : `${Math.round(bytes / MB)} MB`;
}
