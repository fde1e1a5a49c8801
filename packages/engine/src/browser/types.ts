import type { NetworkPolicy } from "../network/policy.js";
import type { BrowserAccess } from "./browser-access.js";
import type { BrowserSnapshot, StorageState } from "./browser-snapshot.js";
import type { BrowserMemoryExceeded } from "./memory-watchdog.js";
import type { ProfileFolder } from "./profile-folder.js";
import type { WarmBrowser } from "./warm-browser.js";

/** A page size in CSS pixels. */
export interface Viewport {
  width: number;
  height: number;
}

/** How a run's browser session is recorded. */
export interface VideoOptions {
  /** Where the WebM file goes; it appears only once it is complete. */
  path: string;
  /**
   * The most frames per second of the video, 5 to 30; 10 by default. A still page adds no frames
   * until it changes.
   */
  fps?: number;
  /** The ffmpeg executable; `ffmpeg` (looked up on PATH) by default. */
  ffmpegPath?: string;
}

export interface RunBrowserOptions {
  /** The Chromium to launch, or a finder called on the first browser step (e.g. findChromium). */
  executablePath: string | (() => string);
  /** 1280×720 by default. */
  viewport?: Viewport;
  /** Records the session to a WebM file when given. */
  video?: VideoOptions;
  /**
   * Marks every process of this browser (a `--skillrun-tag=<tag>` flag and a `SKILLRUN_TAG`
   * environment variable) so `ps` shows which run it belongs to; e.g. the run id.
   */
  tag?: string;
  /**
   * The unprivileged user Chromium runs as when this process runs as root, since Chromium's
   * sandbox refuses root; `nobody` by default. Ignored otherwise: Chromium runs as this process.
   */
  user?: string;
  /**
   * Most memory (proportional set size, in bytes) the browser's processes may use together,
   * measured every 500 ms; past it every one of them is killed, `onMemoryExceeded` is told and
   * browser steps fail with that error. No limit when absent.
   */
  memoryLimitBytes?: number;
  /** Told once when the browser was killed for its memory; the error says how much it used. */
  onMemoryExceeded?: (error: BrowserMemoryExceeded) => void;
  /**
   * Where the page may connect: every request it makes goes through a proxy that enforces it.
   * Nothing private by default.
   */
  network?: NetworkPolicy;
  /** Told about each problem that does not fail a step (recording, closing), as it happens. */
  onProblem?: (message: string) => void;
  /** Told once the browser has started (its recording too), with how long that took in ms. */
  onLaunched?: (ms: number) => void;
  /**
   * A checkpoint's browser to start from: the context starts with its storage and its tabs are
   * opened again as the browser launches (see reopenTabs).
   */
  restore?: BrowserSnapshot;
  /**
   * The storage (cookies, localStorage) the browser starts with when it restores no snapshot:
   * a browser profile's (see profile-state.ts). A restored snapshot's own storage is later.
   * With a profile folder it is added over the folder's own (storage-over-profile.ts).
   */
  storageState?: StorageState;
  /**
   * A Chromium user data folder the browser starts on (an agent's `--profile-dir`): a copy of
   * its own, removed when the browser closes, unless `writable` (profile-folder.ts).
   */
  profileFolder?: ProfileFolder;
  /**
   * Hands over the browser this run's process launched ahead for it (warm-browser.ts), if any; it
   * is taken when the run would launch the same browser, and closed otherwise. Never for a run
   * on a profile folder.
   */
  takeWarm?: () => Promise<WarmBrowser | undefined>;
}

/** A finished recording. */
export interface RecordedVideo {
  path: string;
  width: number;
  height: number;
  frames: number;
  durationMs: number;
}

/** What a run's browser leaves behind once closed. */
export interface RunBrowserResult {
  /** Null when the browser was never opened or the recording failed (see `problems`). */
  video: RecordedVideo | null;
  /** Everything that went wrong without failing a step, in order. */
  problems: string[];
}

/** The browser of one run: access for browser steps, opening it on first use, and `close`. */
/** One screencast frame: a JPEG, and its number in the run's browser (larger is newer). */
export interface LiveFrame {
  seq: number;
  jpeg: Buffer;
}

export interface RunBrowser {
  access: BrowserAccess;
  /**
   * What the current tab shows now: the screencast's latest frame (the one the video repeats),
   * undefined while the browser is not open or nothing was drawn yet. No second capture.
   */
  liveFrame(): LiveFrame | undefined;
  /**
   * Stops recording and ends the browser: settles once the video is complete and Chromium can do
   * nothing more (killed), before its folders are removed; `close` settles after that.
   */
  stop(): Promise<RunBrowserResult>;
  /** Stops recording and ends every process it started; safe to call at any time, repeatedly. */
  close(): Promise<RunBrowserResult>;
}
