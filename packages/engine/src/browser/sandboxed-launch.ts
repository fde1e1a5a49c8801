import { getPriority, userInfo } from "node:os";
import { messageOf } from "../error-message.js";
import { type ChromiumSession, type LaunchStart, launchChromium } from "./chromium-session.js";
import type { ChromiumLauncher } from "./chromium-user.js";
import { launchFailure } from "./launch-failure.js";
import {
  BROWSER_NICENESS,
  browserPriority,
  setAutogroupPriority,
  setSessionPriority,
} from "./processes.js";
import type { Viewport } from "./types.js";

/**
 * Why the sandbox failed, by Chromium and user, once it did: the platform does not change while
 * this process lives, so later runs start without it at once (and are warned all the same).
 */
const sandboxFailures = new Map<string, string>();

/**
 * Launches Chromium with its sandbox. Where the sandbox cannot start (no user namespaces and no
 * setuid helper, as in many containers) Chromium says so and exits; it is then started without
 * it, and `problem` is told loudly, on every run, that its pages are not confined.
 */
export async function launchSandboxed(
  chromiumPath: string,
  launcher: ChromiumLauncher,
  viewport: Viewport,
  tag: string | undefined,
  problem: (message: string) => void,
  /** More flags, e.g. the network guard's proxy. */
  extraArgs: readonly string[] = [],
  /** What the browser starts from: its storage, its profile folder. */
  start: LaunchStart = {},
): Promise<ChromiumSession> {
  const user = launcher.user?.name ?? userInfo().username;
  const key = `${chromiumPath}\0${user}`;
  let failure = sandboxFailures.get(key);
  if (failure === undefined) {
    try {
      return lowered(await launchChromium(launcher, viewport, tag, true, extraArgs, start));
    } catch (error) {
      // Chromium names its sandbox when that is what stopped it ("No usable sandbox!", …); any
      // other failure is the launch's own and is not worth a second try.
      if (!/sandbox/i.test(messageOf(error))) throw error;
      failure = launchFailure(error, chromiumPath).message;
    }
  }
  const session = await launchChromium(launcher, viewport, tag, false, extraArgs, start);
  sandboxFailures.set(key, failure);
  problem(
    `Chromium runs WITHOUT its sandbox, so a page exploiting a flaw in Chromium gets every right ` +
      `of user ${user} (see "Chromium" in docs/security.md); with the sandbox: ${failure}`,
  );
  return lowered(session);
}

/**
 * Gives every thread of the launched browser a run's browser's priority, below this process's
 * (docs/decisions/0071): a browser launched ahead started lower still, and any other Chromium not
 * behind the root wrapper (which lowers it as it starts it) started at this process's own.
 */
function lowered(session: ChromiumSession): ChromiumSession {
  if (session.pid === undefined) return session;
  setSessionPriority(session.pid, browserPriority(getPriority()));
  // Where sessions are grouped for the CPU, below the group of every other session (the server's,
  // the run processes', their ffmpegs'), whose own nice value is 0.
  setAutogroupPriority(session.pid, BROWSER_NICENESS);
  return session;
}
