import type { Browser, BrowserContext, Page } from "playwright-core";
import type { StorageState } from "./browser-snapshot.js";
import type { ChromiumLauncher } from "./chromium-user.js";
import { firstLine } from "./error-text.js";
import { addStorageState } from "./storage-over-profile.js";
import type { Viewport } from "./types.js";

/**
 * For a server: no display or GPU, and nothing that calls home or updates itself during a run.
 * The sandbox stays on unless `launchChromium` is told it cannot work (see sandboxed-launch.ts).
 */
export const CHROMIUM_FLAGS: readonly string[] = [
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** Starting Chromium takes about a second; a busy machine may need far longer. */
const LAUNCH_TIMEOUT_MS = 30_000;
/** How long `browser.close()` may take before the process is killed. */
const CLOSE_TIMEOUT_MS = 5_000;

/** One Chromium process with the run's only context and page. */
export interface ChromiumSession {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** The browser process, to kill it should it not close; undefined when Chromium did not say. */
  pid: number | undefined;
}

/** What a run's Chromium starts from, beyond its flags. */
export interface LaunchStart {
  /**
   * Cookies and localStorage the context starts with (a restored checkpoint's, a saved browser
   * profile's); over a profile folder's own, which keeps what this does not name.
   */
  storageState?: StorageState;
  /** A Chromium user data folder to run on (a profile folder or its copy); a fresh one if absent. */
  userDataDir?: string;
}

/**
 * Launches Chromium headless, saving downloads in the launcher's folder, and opens one page of
 * `viewport` size; with its sandbox unless `sandbox` is false.
 */
export async function launchChromium(
  { executablePath, downloadsPath }: Pick<ChromiumLauncher, "executablePath" | "downloadsPath">,
  viewport: Viewport,
  tag: string | undefined,
  sandbox: boolean,
  /** More flags, e.g. the network guard's proxy. */
  extraArgs: readonly string[] = [],
  start: LaunchStart = {},
): Promise<ChromiumSession> {
  // Loaded here, by the run processes that launch a browser, and by no other process.
  const { chromium } = await import("playwright-core");
  const options = {
    executablePath,
    downloadsPath,
    headless: true,
    // Playwright adds --no-sandbox unless told that the sandbox is wanted.
    chromiumSandbox: sandbox,
    args: [
      ...CHROMIUM_FLAGS,
      ...extraArgs,
      ...(tag === undefined ? [] : [`--skillrun-tag=${tag}`]),
    ],
    ...(tag === undefined ? {} : { env: { ...definedEnv(), SKILLRUN_TAG: tag } }),
    timeout: LAUNCH_TIMEOUT_MS,
    // Playwright would otherwise exit the whole process on SIGINT; whoever owns the run browser
    // decides how to shut down, and closes it.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  };
  if (start.userDataDir !== undefined) {
    return launchOnFolder(chromium, start.userDataDir, options, viewport, start.storageState);
  }
  const browser = await chromium.launch(options);
  const pid = await browserPid(browser);
  try {
    const { storageState } = start;
    const context = await browser.newContext({ viewport, ...(storageState && { storageState }) });
    const page = await context.newPage();
    return { browser, context, page, pid };
  } catch (error) {
    await closeChromium(browser, pid, () => {});
    throw error;
  }
}

/**
 * Launches Chromium on a user data folder (Playwright's persistent context: the browser's only
 * context is the folder's). Its browser, process group and CDP sessions are those of any launch,
 * so closing, killing, the screencast and the tabs work alike. Chromium opens one blank page; a
 * folder set to restore its last session may open more, which are closed so that the run's tabs
 * are its own.
 */
async function launchOnFolder(
  chromium: typeof import("playwright-core").chromium,
  userDataDir: string,
  options: Parameters<typeof import("playwright-core").chromium.launch>[0] & object,
  viewport: Viewport,
  storageState: StorageState | undefined,
): Promise<ChromiumSession> {
  const context = await chromium.launchPersistentContext(userDataDir, { ...options, viewport });
  const browser = context.browser();
  if (browser === null) {
    await context.close();
    throw new Error("Chromium gave no browser for its profile folder");
  }
  const pid = await browserPid(browser);
  try {
    const [page = await context.newPage(), ...restored] = context.pages();
    for (const extra of restored) await extra.close();
    if (storageState !== undefined) await addStorageState(context, storageState);
    return { browser, context, page, pid };
  } catch (error) {
    await closeChromium(browser, pid, () => {});
    throw error;
  }
}

/**
 * Closes the browser; kills it when that takes longer than CLOSE_TIMEOUT_MS, and kills whatever
 * is left of its process group either way, so that no process it started survives. `kill`:
 * nothing the browser would write as it shuts down is kept (its profile is Playwright's
 * temporary folder, or a copy), so its process group is killed first, sparing the run
 * Chromium's own shutdown (docs/decisions/0067); Playwright then sees it gone and removes its
 * folder.
 */
export async function closeChromium(
  browser: Browser,
  pid: number | undefined,
  problem: (message: string) => void,
  { kill = false }: { kill?: boolean } = {},
): Promise<void> {
  if (kill) killTree(pid);
  const closing = browser.close().catch((error: unknown) => {
    problem(`closing Chromium failed: ${firstLine(error)}`);
  });
  if (!(await settlesWithin(closing, CLOSE_TIMEOUT_MS))) {
    problem(
      `Chromium did not close within ${CLOSE_TIMEOUT_MS / 1000}s; killed it (pid ${pid ?? "unknown"})`,
    );
    killTree(pid);
    await settlesWithin(closing, CLOSE_TIMEOUT_MS);
  }
  killTree(pid);
}

/**
 * Kills Chromium's process group (Playwright starts it as a group leader, so its zygotes and
 * renderers go too), else the process alone (e.g. behind a wrapper script that forks).
 */
function killTree(pid: number | undefined): void {
  if (pid === undefined) return;
  const targets = process.platform === "win32" ? [pid] : [-pid, pid];
  for (const target of targets) {
    try {
      process.kill(target, "SIGKILL");
      return;
    } catch {
      // No such group or process: already gone, the usual case after a clean close.
    }
  }
}

/** Playwright hides the process of a launched browser; Chromium itself tells its pid. */
async function browserPid(browser: Browser): Promise<number | undefined> {
  try {
    const cdp = await browser.newBrowserCDPSession();
    const { processInfo } = (await cdp.send("SystemInfo.getProcessInfo")) as {
      processInfo: { type: string; id: number }[];
    };
    await cdp.detach();
    return processInfo.find((info) => info.type === "browser")?.id;
  } catch {
    return undefined;
  }
}

/** Whether `work` settles within `ms`. */
async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** This process's environment, which Chromium would get anyway, in the form Playwright takes. */
function definedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined) env[name] = value;
  }
  return env;
}
