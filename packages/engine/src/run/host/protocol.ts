import type { ChromiumEnv } from "../../browser/find-chromium.js";
import type { RecordedVideo } from "../../browser/types.js";
import type { SkillDefinition } from "../../definition/types.js";
import type { NetworkPolicy } from "../../network/policy.js";
import type { EngineLimits } from "../limits.js";
import type { EngineEvent, ExecutionResult, RunInfo } from "../types.js";

// The messages between a server's run slot and the process (run-host.ts) that executes runs for
// it, one at a time. Everything here crosses a process boundary, so it is plain data.

/** Why the host's run is stopped; the abort signal's reason inside the host. */
export type StopKind = "cancel" | "timeout" | "shutdown" | "lost";

/** One run for a host to execute. */
export interface RunJob {
  definition: SkillDefinition;
  inputs: Record<string, unknown>;
  run: RunInfo;
  limits: EngineLimits;
  /** Where the run may connect: its http steps and every request of its browser. */
  network: NetworkPolicy;
  /** Added to the host's Date.now() so its timestamps follow the server's clock. */
  clockOffsetMs: number;
  browser: {
    chromium: ChromiumEnv;
    /** The WebM file of the run's video. */
    videoPath: string;
    screenshotDir: string;
    /** Marks the browser's processes (`--skillrun-tag=<tag>`) so they can be found and killed. */
    tag: string;
    /** The unprivileged user Chromium runs as when the host runs as root. */
    user: string;
    /** Past this much memory the browser is killed and the run fails saying so. */
    memoryLimitBytes: number;
  };
}

/** What the server tells a run host. */
export type ToRunHost = { type: "start"; job: RunJob } | { type: "stop"; reason: StopKind };

/** An ExecutionResult that can cross processes: an abort's reason is its StopKind. */
export type RunHostResult =
  | Exclude<ExecutionResult, { outcome: "aborted" }>
  | (Omit<Extract<ExecutionResult, { outcome: "aborted" }>, "reason"> & {
      reason: StopKind | null;
    });

/**
 * What a run host tells the server, in order: `ready` once, then for each run events and problems while the run goes, `result`
 * as soon as the engine is done (the run's work is over: no more waiting for it), then `closed`
 * once its browser is closed and its video complete.
 */
export type FromRunHost =
  /** Loaded and listening: the host can take a run at once (sent once, first). */
  | { type: "ready" }
  | { type: "event"; event: EngineEvent }
  | { type: "problem"; message: string }
  | { type: "result"; result: RunHostResult }
  | { type: "closed"; video: RecordedVideo | null };
