import { type GuardedProxy, startGuardedProxy } from "../network/browser-proxy.js";
import { createNetworkGuard } from "../network/guard.js";
import type { DialogHandler } from "./browser-access.js";
import {
  reopenTabs,
  type StorageState,
  snapshotBrowser,
  storageStateOf,
} from "./browser-snapshot.js";
import { type ChromiumSession, closeChromium } from "./chromium-session.js";
import { type ChromiumLauncher, chromiumLauncher, DEFAULT_CHROMIUM_USER } from "./chromium-user.js";
import { answerDialogs } from "./dialogs.js";
import { firstLine } from "./error-text.js";
import { launchFailure } from "./launch-failure.js";
import { type BrowserMemoryExceeded, type MemoryWatchdog, watchMemory } from "./memory-watchdog.js";
import { sessionProcesses } from "./processes.js";
import {
  ProfileFolderRefused,
  type UsedProfileFolder,
  useProfileFolder,
} from "./profile-folder.js";
import { launchSandboxed } from "./sandboxed-launch.js";
import { type ScreencastRecorder, startScreencastRecorder } from "./screencast-recorder.js";
import { Tabs } from "./tabs.js";
import type { RunBrowser, RunBrowserOptions, RunBrowserResult, Viewport } from "./types.js";
import { fits } from "./warm-browser.js";

export const DEFAULT_VIEWPORT: Viewport = { width: 1280, height: 720 };
/** Enough to follow what a skill does; more only makes larger files. */
export const DEFAULT_VIDEO_FPS = 10;
const MIN_FPS = 5;
const MAX_FPS = 30;

interface OpenBrowser {
  session: ChromiumSession;
  launcher: ChromiumLauncher;
  proxy: GuardedProxy;
  recorder: ScreencastRecorder | undefined;
  watchdog: MemoryWatchdog | undefined;
  tabs: Tabs;
  /** Removes the run's copy of its profile folder, or gives the folder back to its owner. */
  releaseProfile: () => Promise<void>;
}

/**
 * The browser of one run. Chromium starts on the first browser step (one process, one page; a
 * page may open more tabs), so a run without browser steps costs nothing; `close` ends it and
 * gives the video, which shows the current tab.
 */
export function createRunBrowser(options: RunBrowserOptions): RunBrowser {
  const viewport = options.viewport ?? DEFAULT_VIEWPORT;
  const fps = options.video?.fps ?? DEFAULT_VIDEO_FPS;
  if (!(fps >= MIN_FPS && fps <= MAX_FPS)) {
    throw new RangeError(`video fps must be between ${MIN_FPS} and ${MAX_FPS}, not ${fps}`);
  }
  // Built now so that a bad allow-list fails here, not at the first browser step.
  const guard = createNetworkGuard(options.network ?? {});
  const problems: string[] = [];
  const problem = (message: string) => {
    problems.push(message);
    options.onProblem?.(message);
  };
  let opening: Promise<OpenBrowser> | undefined;
  let stopped: Promise<Stopped> | undefined;
  let closing: Promise<RunBrowserResult> | undefined;
  let screenshots = 0;
  let exceeded: BrowserMemoryExceeded | undefined;
  let dialogHandler: DialogHandler | undefined;
  /** The browser once open, for what must be answered without waiting (the video's clock). */
  let opened: OpenBrowser | undefined;

  /** What `open` starts from: a launched browser, its proxy and its profile folder. */
  interface Launched {
    session: ChromiumSession;
    launcher: ChromiumLauncher;
    proxy: GuardedProxy;
    releaseProfile: () => Promise<void>;
  }

  async function open(): Promise<OpenBrowser> {
    const { executablePath } = options;
    const launching = performance.now();
    const path = typeof executablePath === "string" ? executablePath : executablePath();
    const storageState = options.restore ? storageStateOf(options.restore) : options.storageState;
    const { session, launcher, proxy, releaseProfile } =
      (await fromWarm(path, storageState)) ?? (await launch(path, storageState));
    // Before any page of the run can open a dialog.
    answerDialogs(session.context, () => dialogHandler, problem);
    const watchdog = watchdogOf(session);
    let recorder: ScreencastRecorder | undefined;
    if (options.video !== undefined) {
      try {
        recorder = await startScreencastRecorder(session.context, session.page, {
          path: options.video.path,
          fps,
          ffmpegPath: options.video.ffmpegPath ?? "ffmpeg",
          viewport,
          problem,
        });
      } catch (error) {
        problem(`video not recorded: the screencast did not start: ${firstLine(error)}`);
      }
    }
    const tabs = await Tabs.track(
      session.browser,
      session.context,
      session.page,
      async (page) => recorder?.show(page),
      problem,
    );
    opened = { session, launcher, proxy, recorder, watchdog, tabs, releaseProfile };
    options.onLaunched?.(performance.now() - launching);
    if (options.restore !== undefined) {
      await reopenTabs(session.context, session.page, tabs, options.restore, problem);
    }
    return opened;
  }

  /** Launches the run's own browser, on its profile folder if it has one. */
  async function launch(path: string, storageState: StorageState | undefined): Promise<Launched> {
    // Every request of the page is held to the network policy here, refusals told as problems.
    const proxy = await startGuardedProxy(guard, problem);
    let launcher: ChromiumLauncher | undefined;
    let session: ChromiumSession;
    let profile: UsedProfileFolder | undefined;
    try {
      launcher = await chromiumLauncher(path, options.user ?? DEFAULT_CHROMIUM_USER);
      profile =
        options.profileFolder &&
        (await useProfileFolder(options.profileFolder, launcher, options.tag));
      session = await launchSandboxed(
        path,
        launcher,
        viewport,
        options.tag,
        problem,
        proxy.chromiumArgs,
        {
          ...(storageState && { storageState }),
          ...(profile && { userDataDir: profile.userDataDir }),
        },
      );
    } catch (error) {
      await profile?.release().catch((failure: unknown) => problem(firstLine(failure)));
      await launcher?.dispose();
      await proxy.close();
      throw error instanceof ProfileFolderRefused ? error : launchFailure(error, path);
    }
    const releaseProfile = async () => {
      await profile?.release().catch((failure: unknown) => problem(firstLine(failure)));
    };
    return { session, launcher, proxy, releaseProfile };
  }

  /**
   * The browser launched ahead for this run by its process (`takeWarm`), when the run would have
   * launched the same one: no profile folder, the same Chromium, user and viewport. Its proxy
   * takes the run's policy; its context takes the run's storage as a new context would have.
   * Undefined when there is none to take or it does not fit (it is then closed).
   */
  async function fromWarm(
    path: string,
    storageState: StorageState | undefined,
  ): Promise<Launched | undefined> {
    if (options.profileFolder !== undefined || options.takeWarm === undefined) return undefined;
    const warm = await options.takeWarm().catch(() => undefined);
    if (warm === undefined) return undefined;
    const user = options.user ?? DEFAULT_CHROMIUM_USER;
    if (!fits(warm, { executablePath: path, user, viewport })) {
      await warm.discard();
      return undefined;
    }
    warm.take(guard, problem);
    for (const warning of warm.warnings) problem(warning);
    try {
      if (storageState !== undefined) await warm.session.context.setStorageState(storageState);
    } catch {
      // A launch of its own says what is wrong, if anything still is.
      await warm.discard();
      return undefined;
    }
    const { session, launcher, proxy } = warm;
    return { session, launcher, proxy, releaseProfile: async () => {} };
  }

  /** Ends the browser when it uses more memory than allowed; none without a limit or a pid. */
  function watchdogOf(session: ChromiumSession): MemoryWatchdog | undefined {
    const limit = options.memoryLimitBytes;
    if (limit === undefined) return undefined;
    if (session.pid === undefined) {
      problem("browser memory not limited: Chromium did not tell its process id");
      return undefined;
    }
    return watchMemory(
      session.pid,
      limit,
      (error) => {
        exceeded = error;
        options.onMemoryExceeded?.(error);
      },
      problem,
    );
  }

  /** The browser, launching it on first use; a failed launch is tried again. */
  function browser(): Promise<OpenBrowser> {
    if (exceeded !== undefined) return Promise.reject(exceeded);
    if (stopped !== undefined) return Promise.reject(new Error("the run's browser is closed"));
    if (opening === undefined) {
      const attempt = open();
      opening = attempt;
      // Forget a failed launch so the step's next attempt launches afresh.
      attempt.catch(() => {
        if (opening === attempt) opening = undefined;
      });
    }
    return opening;
  }

  /** The browser stopped and its video complete, and what is left to remove once it is gone. */
  interface Stopped {
    result: RunBrowserResult;
    removeRest: () => Promise<void>;
  }

  async function stopBrowser(): Promise<Stopped> {
    // A launch under way is waited for (it is bounded by its own timeout), then closed.
    const open = await opening?.catch(() => undefined);
    if (open === undefined) {
      return { result: { video: null, problems: [...problems] }, removeRest: async () => {} };
    }
    const { session, launcher, proxy, recorder, watchdog, releaseProfile } = open;
    watchdog?.stop();
    const recording = (recorder?.stop() ?? Promise.resolve(null)).catch((error: unknown) => {
      problem(`video not recorded: ${firstLine(error)}`);
      return null;
    });
    // Killed rather than shut down once the video has its last frame, unless Chromium works in
    // the user's own profile folder (--profile-writable), which it must leave whole.
    await recorder?.lastFrameTaken();
    const kill = options.profileFolder?.writable !== true;
    const chromiumClosed = closeChromium(session.browser, session.pid, problem, { kill });
    if (options.profileFolder !== undefined) {
      // Closed, and its copy removed or the folder given back (once Chromium is gone, so that it
      // writes nothing more into it), before the run ends: the folder holds the user's sign-ins.
      await chromiumClosed;
      await releaseProfile();
    } else if (session.pid === undefined) {
      await chromiumClosed;
    } else {
      // Killed, and no process of it able to run: Playwright's removal of its profile folder,
      // much of the ending on a busy machine, is no longer the run's to wait for (docs/decisions/
      // 0070). (Playwright may call the browser closed as soon as its pipe closes, before that.)
      await sessionGone(session.pid, GONE_WAIT_MS);
    }
    const video = await recording;
    const removeRest = async () => {
      await chromiumClosed;
      await launcher.dispose();
      await proxy.close();
    };
    return { result: { video, problems: [...problems] }, removeRest };
  }

  const stop = () => {
    stopped ??= stopBrowser();
    return stopped;
  };

  return {
    access: {
      page: async () => (await browser()).tabs.page(),
      started: () => opening !== undefined,
      downloadsDir: async () => (await browser()).launcher.downloadsPath,
      nextScreenshotNumber: () => {
        screenshots += 1;
        return screenshots;
      },
      handleDialogs(handler) {
        dialogHandler = handler;
      },
      switchTab: async (which, timeoutMs, signal) =>
        (await browser()).tabs.switchTo(which, timeoutMs, signal),
      closeTab: async () => (await browser()).tabs.closeCurrent(),
      async snapshot() {
        // Only a browser that is open: a checkpoint never launches one.
        const open = await opening?.catch(() => undefined);
        if (open === undefined || stopped !== undefined) return null;
        return snapshotBrowser(open.session.context, open.tabs);
      },
      videoOffsetMs: () => (stopped === undefined ? opened?.recorder?.offsetMs() : undefined),
    },
    liveFrame: () => opened?.recorder?.latestFrame(),
    async stop() {
      return (await stop()).result;
    },
    close() {
      closing ??= stop().then(async ({ result, removeRest }) => {
        await removeRest();
        return { ...result, problems: [...problems] };
      });
      return closing;
    },
  };
}

/** How often `sessionGone` looks. */
const GONE_POLL_MS = 10;
/** How long a killed browser's processes may take to stop before the run ends regardless. */
const GONE_WAIT_MS = 5_000;

/**
 * Settles once no process that can still run is left in the session Chromium leads (Playwright
 * starts it as a session leader; its zygotes and renderers stay in that session), or after `ms`.
 * Right after the kill of its group every one of them has SIGKILL pending; the kernel freeing
 * their memory is not waited for (sessionProcesses, docs/decisions/0071).
 */
async function sessionGone(pid: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && sessionProcesses(pid).some((process) => process.canRun)) {
    await new Promise((resolve) => setTimeout(resolve, GONE_POLL_MS));
  }
}
