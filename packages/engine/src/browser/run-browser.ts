import { type GuardedProxy, startGuardedProxy } from "../network/browser-proxy.js";
import { createNetworkGuard } from "../network/guard.js";
import type { DialogHandler } from "./browser-access.js";
import { reopenTabs, snapshotBrowser, storageStateOf } from "./browser-snapshot.js";
import { type ChromiumSession, closeChromium } from "./chromium-session.js";
import { type ChromiumLauncher, chromiumLauncher, DEFAULT_CHROMIUM_USER } from "./chromium-user.js";
import { answerDialogs } from "./dialogs.js";
import { firstLine } from "./error-text.js";
import { launchFailure } from "./launch-failure.js";
import { type BrowserMemoryExceeded, type MemoryWatchdog, watchMemory } from "./memory-watchdog.js";
import {
  ProfileFolderRefused,
  type UsedProfileFolder,
  useProfileFolder,
} from "./profile-folder.js";
import { launchSandboxed } from "./sandboxed-launch.js";
import { type ScreencastRecorder, startScreencastRecorder } from "./screencast-recorder.js";
import { Tabs } from "./tabs.js";
import type { RunBrowser, RunBrowserOptions, RunBrowserResult, Viewport } from "./types.js";

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
  let closing: Promise<RunBrowserResult> | undefined;
  let screenshots = 0;
  let exceeded: BrowserMemoryExceeded | undefined;
  let dialogHandler: DialogHandler | undefined;
  /** The browser once open, for what must be answered without waiting (the video's clock). */
  let opened: OpenBrowser | undefined;

  async function open(): Promise<OpenBrowser> {
    const { executablePath } = options;
    const launching = performance.now();
    const path = typeof executablePath === "string" ? executablePath : executablePath();
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
      const storageState = options.restore ? storageStateOf(options.restore) : options.storageState;
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
    if (closing !== undefined) return Promise.reject(new Error("the run's browser is closed"));
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

  async function shutDown(): Promise<RunBrowserResult> {
    // A launch under way is waited for (it is bounded by its own timeout), then closed.
    const open = await opening?.catch(() => undefined);
    if (open === undefined) return { video: null, problems: [...problems] };
    const { session, launcher, proxy, recorder, watchdog, releaseProfile } = open;
    watchdog?.stop();
    const stopping = (recorder?.stop() ?? Promise.resolve(null)).catch((error: unknown) => {
      problem(`video not recorded: ${firstLine(error)}`);
      return null;
    });
    // Killed rather than shut down once the video has its last frame, unless Chromium works in
    // the user's own profile folder (--profile-writable), which it must leave whole.
    await recorder?.lastFrameTaken();
    const kill = options.profileFolder?.writable !== true;
    await closeChromium(session.browser, session.pid, problem, { kill });
    const video = await stopping;
    // Once Chromium is gone, so that it writes nothing more into the folder.
    await releaseProfile();
    await launcher.dispose();
    await proxy.close();
    return { video, problems: [...problems] };
  }

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
        if (open === undefined || closing !== undefined) return null;
        return snapshotBrowser(open.session.context, open.tabs);
      },
      videoOffsetMs: () => (closing === undefined ? opened?.recorder?.offsetMs() : undefined),
    },
    liveFrame: () => opened?.recorder?.latestFrame(),
    close() {
      closing ??= shutDown();
      return closing;
    },
  };
}
