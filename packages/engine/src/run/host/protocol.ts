import type { StorageState } from "../../browser/browser-snapshot.js";
import type { ChromiumEnv } from "../../browser/find-chromium.js";
import type { ProfileFolder } from "../../browser/profile-folder.js";
import type { RecordedVideo } from "../../browser/types.js";
import type { ProfileSave } from "../../definition/profile.js";
import type { SkillDefinition } from "../../definition/types.js";
import type { RunFile } from "../../files/run-files.js";
import type { NetworkPolicy } from "../../network/policy.js";
import type { Checkpoint } from "../checkpoint.js";
import type { EngineLimits } from "../limits.js";
import type { EngineEvent, ExecutionResult, PauseRequest, RunInfo, StepRef } from "../types.js";
import type { JobTrace } from "./step-tracing.js";

// The messages between a server's run slot and the process (run-host.ts) that executes runs for
// it, one at a time. Everything here crosses a process boundary, so it is plain data.

/**
 * Why the host's run is stopped; the abort signal's reason inside the host. `quota`: what the run
 * stored was refused by the server (its owner's storage quota). `park`: the run waits and goes
 * on later, from its checkpoint, in another process.
 */
export type StopKind = "cancel" | "timeout" | "shutdown" | "lost" | "quota" | "park";

/** One run for a host to execute. */
export interface RunJob {
  definition: SkillDefinition;
  /** The skills its `call` steps reach, by id (the same owner's). */
  skills: Record<string, SkillDefinition>;
  /** Secret inputs (`secret: true`) included, in clear: the host masks them in what it reports. */
  inputs: Record<string, unknown>;
  /** The owner's secrets the definition references (`secrets.NAME`), decrypted. */
  secrets: Record<string, string>;
  run: RunInfo;
  limits: EngineLimits;
  /** Where the run may connect: its http steps and every request of its browser. */
  network: NetworkPolicy;
  /** The run's own folder of files (screenshots, downloads, …). */
  files: { dir: string; existing: RunFile[] };
  /**
   * The checkpoint to go on from (a resume, a rerun): the engine restores it and the browser
   * starts from its tabs and storage (ExecuteSkillOptions.resume).
   */
  resume?: Checkpoint;
  /**
   * The run's browser profile: the storage its browser starts with (null: none saved yet), when
   * the host reports the browser's storage back (a `profile` message) for it to be saved, and
   * the most that message may hold (larger, it is not sent: the server would not keep it).
   */
  profile?: { state: StorageState | null; save: ProfileSave; maxBytes: number };
  /** Added to the host's Date.now() so its timestamps follow the server's clock. */
  clockOffsetMs: number;
  /** When the run is traced: its span's context and where spans go (run/host/step-tracing.ts). */
  trace?: JobTrace;
  browser: {
    chromium: ChromiumEnv;
    /** The WebM file of the run's video. */
    videoPath: string;
    /** Marks the browser's processes (`--skillrun-tag=<tag>`) so they can be found and killed. */
    tag: string;
    /** The unprivileged user Chromium runs as when the host runs as root. */
    user: string;
    /** Past this much memory the browser is killed and the run fails saying so. */
    memoryLimitBytes: number;
    /** The agent's `--profile-dir`: the Chromium user data folder the browser starts on. */
    profileFolder?: ProfileFolder;
    /**
     * When set, the process keeps a browser launched ahead for its next run once a run's browser
     * has closed, its processes marked with this tag (docs/decisions/0070).
     */
    warmTag?: string;
  };
}

/** What the server tells a run host. */
export type ToRunHost =
  | { type: "start"; job: RunJob }
  | { type: "stop"; reason: StopKind }
  /** The answer to `effects`: recorded, or why not. */
  | { type: "effects_recorded"; error: string | null }
  /** A client asked the run to pause before its next step. */
  | { type: "pause" }
  /** The answer to `paused`: a client resumed the run, with this answer (undefined: none). */
  | { type: "resume"; answer: unknown }
  /**
   * Somebody watches the run's live view (or nobody any more): while so, its screencast frames
   * are sent (`frame`). Sent after `start` whenever it changes; a new run starts unwatched.
   */
  | { type: "live"; watched: boolean };

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
  /**
   * The state at a step boundary, in order with the events (ExecuteSkillOptions.onCheckpoint):
   * its JSON, made here rather than on the server's thread, and what the server files it under.
   */
  | { type: "checkpoint"; step: string; seq: number; top_level: boolean; json: string }
  /**
   * The run is about to begin its first step that may have effects: the step waits until the
   * server answers `effects_recorded` (ExecuteSkillOptions.beforeEffects).
   */
  | { type: "effects"; step: StepRef }
  /**
   * The run waits for a client (an `ask`, or a pause asked for) until the server answers
   * `resume`, or stops it (ExecuteSkillOptions.pause); an ask's prompt has its secrets masked.
   */
  | { type: "paused"; request: PauseRequest }
  /** The run gave up waiting (a timeout inside it) and goes on without an answer. */
  | { type: "pause_abandoned" }
  /** A `wait` step waits, doing nothing, until `until` (ISO): see ExecuteSkillOptions.onWait. */
  | { type: "waiting"; step: StepRef; until: string }
  | { type: "problem"; message: string }
  /**
   * What the run's current tab shows now, a JPEG from the screencast: sent a few times a second
   * at most while the run is watched (`live`), and once more when the run is parked.
   */
  | { type: "frame"; jpeg: Uint8Array }
  /** The run's browser started, in `ms` (its launch time, for the server's metrics). */
  | { type: "browser_launched"; ms: number }
  /** A run file stored, complete on disk. */
  | { type: "file"; file: RunFile }
  /**
   * The browser's storage at the run's end, as JSON (cookie values in it: the server seals it
   * and never logs it), sent before `result` when the run's profile is to be saved.
   */
  | { type: "profile"; json: string }
  | { type: "result"; result: RunHostResult }
  | { type: "closed"; video: RecordedVideo | null };
