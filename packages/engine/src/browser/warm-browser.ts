import { type GuardedProxy, startGuardedProxy } from "../network/browser-proxy.js";
import type { NetworkGuard } from "../network/guard.js";
import { type ChromiumSession, closeChromium } from "./chromium-session.js";
import { type ChromiumLauncher, chromiumLauncher } from "./chromium-user.js";
import { BROWSER_NICENESS, mayRaisePriority } from "./processes.js";
import { launchSandboxed } from "./sandboxed-launch.js";
import type { Viewport } from "./types.js";

/** What a warm browser was launched for; a run takes it only when its own is the same. */
export interface WarmSpec {
  executablePath: string;
  /** The user Chromium runs as when this process runs as root. */
  user: string;
  viewport: Viewport;
  /** Marks its processes (`--skillrun-tag=<tag>`), so that they can be found and killed. */
  tag: string;
}

/**
 * A Chromium launched before its run, with its context and first page open (docs/decisions/0070),
 * for exactly one run: nothing it holds was ever a run's. Until a run takes it, its proxy
 * refuses every connection, as no run's network policy applies yet.
 */
export interface WarmBrowser {
  spec: WarmSpec;
  session: ChromiumSession;
  launcher: ChromiumLauncher;
  proxy: GuardedProxy;
  /** What the launch had to say (Chromium without its sandbox), told to the run that takes it. */
  warnings: readonly string[];
  /** Hands its proxy to the run: the run's policy and the run's problems from now on. */
  take(guard: NetworkGuard, report: (message: string) => void): void;
  /** Closes what nobody took. */
  discard(): Promise<void>;
}

/** Nice values added for the launch: 19 at most, the lowest priority. */
const LAUNCH_NICENESS = 19;

/** The guard before any run: every connection fails, as though nothing resolved. */
const NO_RUN_YET: NetworkGuard = {
  resolve: () => Promise.reject(new Error("the browser serves no run yet")),
  checkUrl: () => Promise.reject(new Error("the browser serves no run yet")),
};

/** Launches a browser for a run to come, exactly as that run would launch its own. */
export async function launchWarmBrowser(spec: WarmSpec): Promise<WarmBrowser> {
  let guard = NO_RUN_YET;
  let report: (message: string) => void = () => {};
  const proxy = await startGuardedProxy(
    { resolve: (host, port) => guard.resolve(host, port), checkUrl: (url) => guard.checkUrl(url) },
    (message) => report(message),
  );
  const warnings: string[] = [];
  let launcher: ChromiumLauncher | undefined;
  try {
    // At the lowest priority, so that starting a browser nobody waits for yet takes only what the
    // runs under way leave; then at a run's browser's (launchSandboxed). Only where the priority
    // can be raised back (CAP_SYS_NICE), and through the root wrapper rather than this process's
    // thread, which may meanwhile be running the next run. Elsewhere it launches as a run's would.
    const lowest = mayRaisePriority();
    launcher = await chromiumLauncher(
      spec.executablePath,
      spec.user,
      lowest ? LAUNCH_NICENESS : BROWSER_NICENESS,
    );
    const session = await launchSandboxed(
      spec.executablePath,
      launcher,
      spec.viewport,
      spec.tag,
      (message) => warnings.push(message),
      proxy.chromiumArgs,
    );
    const ownLauncher = launcher;
    return {
      spec,
      session,
      launcher: ownLauncher,
      proxy,
      warnings,
      take(runGuard, runReport) {
        guard = runGuard;
        report = runReport;
      },
      async discard() {
        await closeChromium(session.browser, session.pid, () => {}, { kill: true });
        await ownLauncher.dispose();
        await proxy.close();
      },
    };
  } catch (error) {
    await launcher?.dispose();
    await proxy.close();
    throw error;
  }
}

/** Whether a run launching for `spec` would launch exactly this browser. */
export function fits(warm: WarmBrowser, spec: Omit<WarmSpec, "tag">): boolean {
  const own = warm.spec;
  return (
    own.executablePath === spec.executablePath &&
    own.user === spec.user &&
    own.viewport.width === spec.viewport.width &&
    own.viewport.height === spec.viewport.height &&
    warm.session.browser.isConnected()
  );
}
