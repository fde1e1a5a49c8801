import { execFile } from "node:child_process";
import { chmod, chown, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { BROWSER_NICENESS } from "./processes.js";

/** The user Chromium runs as when this process runs as root; present on every Debian system. */
export const DEFAULT_CHROMIUM_USER = "nobody";

/** A user account Chromium is started as. */
export interface ChromiumUser {
  name: string;
  uid: number;
  gid: number;
}

/** What to execute to start Chromium, and what to remove once it has ended. */
export interface ChromiumLauncher {
  executablePath: string;
  /** Whom Chromium runs as: the user switched to, or undefined for this process's own user. */
  user: ChromiumUser | undefined;
  /**
   * A folder of the run's own that Chromium's user may write, for the files the page downloads
   * (Playwright's default folder belongs to this process, which Chromium cannot write as
   * another user, so every download would be cancelled).
   */
  downloadsPath: string;
  dispose(): Promise<void>;
}

/** Whether this process runs as root, the one case where Chromium must change user. */
export function runsAsRoot(): boolean {
  return process.getuid?.() === 0;
}

/**
 * How to start Chromium at `executablePath`. Chromium's sandbox refuses to run as root, so a root
 * process starts it as `userName` through a wrapper script; any other process starts it as itself.
 */
export async function chromiumLauncher(
  executablePath: string,
  userName: string,
  /** How many nice values below this process's priority the root wrapper starts Chromium at. */
  niceness = BROWSER_NICENESS,
): Promise<ChromiumLauncher> {
  if (!runsAsRoot()) {
    const downloadsPath = await mkdtemp(join(tmpdir(), "skillrun-downloads-"));
    return {
      executablePath,
      user: undefined,
      downloadsPath,
      dispose: () => removeAll([downloadsPath]),
    };
  }
  const user = await lookUpUser(userName);
  // Private to root (mkdtemp makes it 0700): the script is executed as root, so nobody else may
  // be able to change it.
  const dir = await mkdtemp(join(tmpdir(), "skillrun-chromium-"));
  const made = [dir];
  const script = join(dir, "chromium-as-user");
  try {
    await writeFile(script, wrapperScript(executablePath, user, niceness), { mode: 0o700 });
    await chmod(script, 0o700);
    // Private to Chromium's user (0700 from mkdtemp); root reads what it downloads.
    const downloadsPath = await mkdtemp(join(tmpdir(), "skillrun-downloads-"));
    made.push(downloadsPath);
    await chown(downloadsPath, user.uid, user.gid);
    return { executablePath: script, user, downloadsPath, dispose: () => removeAll(made) };
  } catch (error) {
    await removeAll(made);
    throw error;
  }
}

async function removeAll(dirs: string[]): Promise<void> {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
}

/**
 * A shell script, run as root, that starts Chromium as `user` with every argument Playwright
 * gives. Playwright creates the profile folder (`--user-data-dir`) as root before the launch, so
 * the script hands it to the user first, private to it (0700), and makes it the user's HOME so
 * that nothing Chromium writes lands in root's home. setpriv then drops every group, every
 * capability (bounding set included) and forbids regaining privileges (no_new_privs) before it
 * executes Chromium, at a lower CPU priority; Chromium's own sandbox then confines each renderer
 * further.
 */
export function wrapperScript(
  executablePath: string,
  user: ChromiumUser,
  niceness = BROWSER_NICENESS,
): string {
  const owner = `${user.uid}:${user.gid}`;
  return [
    "#!/bin/sh",
    `# Starts Chromium as ${user.name}: its sandbox refuses to run as root.`,
    "profile=",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion
    'for arg do case "$arg" in --user-data-dir=*) profile=${arg#--user-data-dir=} ;; esac; done',
    'if [ -n "$profile" ]; then',
    `  chown -R ${owner} -- "$profile" && chmod 700 -- "$profile" || exit 70`,
    '  export HOME="$profile" XDG_CONFIG_HOME="$profile/.config" XDG_CACHE_HOME="$profile/.cache"',
    "fi",
    // Below this process's priority (processes.ts, BROWSER_NICENESS) even where it may not
    // lower another user's processes afterwards (no CAP_SYS_NICE, as in Docker by default).
    `exec nice -n ${niceness} setpriv --reuid=${user.uid} --regid=${user.gid} --clear-groups \\`,
    "  --inh-caps=-all --ambient-caps=-all --bounding-set=-all --no-new-privs \\",
    `  -- ${shellQuoted(executablePath)} "$@"`,
    "",
  ].join("\n");
}

const looked = new Map<string, Promise<ChromiumUser>>();

/** The account named `name` (from the system's user database), which must not be root. */
export function lookUpUser(name: string): Promise<ChromiumUser> {
  let found = looked.get(name);
  if (found === undefined) {
    found = readUser(name);
    looked.set(name, found);
    // A missing user may be created later; ask again next time.
    found.catch(() => looked.delete(name));
  }
  return found;
}

async function readUser(name: string): Promise<ChromiumUser> {
  let entry: string;
  try {
    // getent asks NSS, so users from LDAP and the like count too, not only /etc/passwd.
    ({ stdout: entry } = await promisify(execFile)("getent", ["passwd", name]));
  } catch {
    throw new Error(`there is no user ${JSON.stringify(name)} to run Chromium as`);
  }
  const [, , uid, gid] = entry.trim().split(":");
  const user = { name, uid: Number(uid), gid: Number(gid) };
  if (!Number.isInteger(user.uid) || !Number.isInteger(user.gid)) {
    throw new Error(`the user database has no usable entry for ${JSON.stringify(name)}`);
  }
  if (user.uid === 0 || user.gid === 0) {
    throw new Error(
      `Chromium must run as an unprivileged user, not ${JSON.stringify(name)} (uid ${user.uid}, gid ${user.gid})`,
    );
  }
  return user;
}

function shellQuoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
