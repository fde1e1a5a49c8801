import type { Page } from "playwright-core";
import { type GuardedProxy, startGuardedProxy } from "../network/browser-proxy.js";
import { createNetworkGuard } from "../network/guard.js";
import { type ChromiumSession, closeChromium } from "./chromium-session.js";
import { type ChromiumLauncher, chromiumLauncher, DEFAULT_CHROMIUM_USER } from "./chromium-user.js";
import { firstLine } from "./error-text.js";
import { launchFailure } from "./launch-failure.js";
import { type BrowserMemoryExceeded, type MemoryWatchdog, watchMemory } from "./memory-watchdog.js";
import { launchSandboxed } from "./sandboxed-launch.js";
import { type ScreencastRecorder, startScreencastRecorder } from "./screencast-recorder.js";
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
}

/**
 * The browser of one run. Chromium starts on the first browser step (one process, one page), so a
 * run without browser steps costs nothing; `close` ends it and gives the video.
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

  async function open(): Promise<OpenBrowser> {
    const { executablePath } = options;
    const path = typeof executablePath === "string" ? executablePath : executablePath();
    // Every request of the page is held to the network policy here, refusals told as problems.
    const proxy = await startGuardedProxy(guard, problem);
    let launcher: ChromiumLauncher | undefined;
    let session: ChromiumSession;
    try {
      launcher = await chromiumLauncher(path, options.user ?? DEFAULT_CHROMIUM_USER);
      session = await launchSandboxed(
        path,
        launcher,
        viewport,
        options.tag,
        problem,
        proxy.chromiumArgs,
      );
    } catch (error) {
      await launcher?.dispose();
      await proxy.close();
      throw launchFailure(error, path);
    }
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
    return { session, launcher, proxy, recorder, watchdog };
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

  /** The run's page, launching the browser on first use; a failed launch is tried again. */
  function page(): Promise<Page> {
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
    return opening.then((opened) => opened.session.page);
  }

  async function shutDown(): Promise<RunBrowserResult> {
    // A launch under way is waited for (it is bounded by its own timeout), then closed.
    const opened = await opening?.catch(() => undefined);
    if (opened === undefined) return { video: null, problems: [...problems] };
    const { session, launcher, proxy, recorder, watchdog } = opened;
    watchdog?.stop();
    const [video] = await Promise.all([
      recorder?.stop() ?? null,
      closeChromium(session.browser, session.pid, problem),
    ]);
    await launcher.dispose();
    await proxy.close();
    return { video, problems: [...problems] };
  }

  return {
    access: {
      page,
      screenshotDir: options.screenshotDir,
      nextScreenshotNumber: () => {
        screenshots += 1;
        return screenshots;
      },
    },
    close() {
      closing ??= shutDown();
      return closing;
    },
  };
}
