import { constants } from "node:fs";
import {
  access,
  chmod,
  copyFile,
  lchown,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readlink,
  rm,
  stat,
} from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import type { ChromiumLauncher } from "./chromium-user.js";

/**
 * A Chromium user data folder of the machine's user (`skillrun agent --profile-dir`), which a
 * run's browser starts on: their sign-ins, cookies and localStorage.
 */
export interface ProfileFolder {
  path: string;
  /**
   * The browser uses the folder itself, so what a run does stays in it; otherwise (the default)
   * each run's browser uses a copy of its own, removed after the run.
   */
  writable: boolean;
}

/**
 * What a run's copy leaves out. Chromium's `Singleton*` entries are its lock (a symlink naming
 * the host and process that hold the folder, a socket, a cookie): copied, they would tell the
 * run's Chromium that the user's Chromium holds the copy. The rest are caches Chromium fills
 * again as it needs them, often hundreds of MB, which hold no sign-in.
 */
const LEFT_OUT_NAMES = new Set([
  "Cache",
  "Code Cache",
  "GPUCache",
  "DawnGraphiteCache",
  "DawnWebGPUCache",
  "GrShaderCache",
  "GraphiteDawnCache",
  "ShaderCache",
  "GPUPersistentCache",
  "component_crx_cache",
  "extensions_crx_cache",
  "Crashpad",
]);
const LEFT_OUT_PATHS = [`Service Worker${sep}CacheStorage`, `Service Worker${sep}ScriptCache`];

function leftOut(name: string, path: string): boolean {
  return (
    name.startsWith("Singleton") ||
    LEFT_OUT_NAMES.has(name) ||
    LEFT_OUT_PATHS.some((suffix) => path.endsWith(suffix))
  );
}

/**
 * Copies the profile folder `source` into a new private folder (0700) for one run's browser,
 * leaving out Chromium's lock and its caches (LEFT_OUT_*). Only folders and regular files are
 * copied: a symbolic link could lead back into the user's files, which the run's browser could
 * then change. Its name carries `tag` (see removeProfileCopies). Returns the copy's path; the
 * caller removes it.
 */
export async function copyProfileFolder(source: string, tag = ""): Promise<string> {
  const copy = await mkdtemp(join(tmpdir(), copyPrefix(tag)));
  try {
    await copyInto(source, copy, source);
    return copy;
  } catch (error) {
    await rm(copy, { recursive: true, force: true });
    throw new Error(
      `could not copy the browser profile folder ${source}: ${(error as Error).message}`,
    );
  }
}

/** The start of the name of a copy made for the browser tagged `tag` (RunBrowserOptions.tag). */
function copyPrefix(tag: string): string {
  return `skillrun-profile-${tag.replace(/[^\w-]/g, "_")}-`;
}

/**
 * Removes the profile folder copies of the browser tagged `tag`: what a run process that was
 * killed (and so never closed its browser) leaves behind, as killBrowserProcesses ends its
 * Chromium. Returns how many there were.
 */
export async function removeProfileCopies(tag: string): Promise<number> {
  const prefix = copyPrefix(tag);
  const left = (await readdir(tmpdir())).filter((name) => name.startsWith(prefix));
  await Promise.all(left.map((name) => rm(join(tmpdir(), name), { recursive: true, force: true })));
  return left.length;
}

async function copyInto(from: string, to: string, root: string): Promise<void> {
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const path = join(from, entry.name);
    if (leftOut(entry.name, relative(root, path))) continue;
    try {
      if (entry.isDirectory()) {
        await mkdir(join(to, entry.name), { mode: 0o700 });
        await copyInto(path, join(to, entry.name), root);
      } else if (entry.isFile()) {
        await copyFile(path, join(to, entry.name));
      }
    } catch (error) {
      // The user's running Chromium removes files as it goes (journals, temporary files): one
      // gone since the folder was listed is simply not in the copy.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
}

/**
 * Whether a running Chromium holds the folder: its `SingletonLock` names `host-pid`, and Chromium
 * itself takes a lock whose process is gone on this host as stale (after a crash), as this does.
 */
export async function profileFolderInUse(path: string): Promise<boolean> {
  let target: string;
  try {
    target = await readlink(join(path, "SingletonLock"));
  } catch {
    return false;
  }
  const split = target.lastIndexOf("-");
  const host = target.slice(0, split);
  const pid = Number(target.slice(split + 1));
  if (host !== hostname() || !Number.isInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Why the folder cannot serve as a profile folder (missing, not a folder, not readable, or for
 * writable use not writable or in use by a running Chromium); undefined when it can.
 */
export async function profileFolderProblem(folder: ProfileFolder): Promise<string | undefined> {
  const { path, writable } = folder;
  try {
    if (!(await stat(path)).isDirectory()) return `${path} is not a folder`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? `${path} does not exist` : `${path} cannot be read (${code})`;
  }
  const needed = constants.R_OK | constants.X_OK | (writable ? constants.W_OK : 0);
  try {
    await access(path, needed);
  } catch {
    return `${path} cannot be ${writable ? "read and written" : "read"} by this user`;
  }
  if (writable && (await profileFolderInUse(path))) {
    return `${path} is in use by a running Chromium (its SingletonLock is there): close that Chromium, or leave out --profile-writable to give each run a copy`;
  }
  return undefined;
}

/** Who owns a folder and its mode, to give it back after a run's Chromium ran in it as another user. */
export async function ownerOf(path: string): Promise<FolderOwner> {
  const { uid, gid, mode } = await lstat(path);
  return { uid, gid, mode: mode & 0o7777 };
}

interface FolderOwner {
  uid: number;
  gid: number;
  /** The folder's own mode: the launch as another user makes it 0700 (chromium-user.ts). */
  mode: number;
}

/**
 * Gives the folder and everything in it to `owner`: as root a run's Chromium runs as another
 * user (chromium-user.ts), whose launch takes the folder over; a writable profile folder is the
 * user's own and must go back to them.
 */
export async function giveBack(path: string, owner: FolderOwner): Promise<void> {
  await chownAll(path, owner);
  await chmod(path, owner.mode);
}

async function chownAll(path: string, owner: FolderOwner): Promise<void> {
  await lchown(path, owner.uid, owner.gid);
  for (const entry of await readdir(path, { withFileTypes: true })) {
    const inside = join(path, entry.name);
    if (entry.isDirectory()) await chownAll(inside, owner);
    else await lchown(inside, owner.uid, owner.gid);
  }
}

/** A writable profile folder a run's browser cannot use now: a running Chromium holds it. */
export class ProfileFolderRefused extends Error {
  override readonly name = "ProfileFolderRefused";
}

/** The folder a run's Chromium starts on, and what to do with it once Chromium has ended. */
export interface UsedProfileFolder {
  userDataDir: string;
  release(): Promise<void>;
}

/**
 * Readies a profile folder for one run's browser: a copy of its own unless the folder is
 * writable; the folder itself otherwise, refused while another Chromium holds it (Chromium would
 * hand the run's pages to that one and exit). `release` removes the copy, or gives the folder
 * back to its owner when Chromium ran as another user (`launcher.user`, as root).
 */
export async function useProfileFolder(
  folder: ProfileFolder,
  launcher: Pick<ChromiumLauncher, "user">,
  tag: string | undefined,
): Promise<UsedProfileFolder> {
  if (!folder.writable) {
    const copy = await copyProfileFolder(folder.path, tag);
    return { userDataDir: copy, release: () => rm(copy, { recursive: true, force: true }) };
  }
  if (await profileFolderInUse(folder.path)) {
    throw new ProfileFolderRefused(
      `the browser profile folder ${folder.path} is in use by another Chromium (its SingletonLock is there); a writable profile folder serves one browser at a time`,
    );
  }
  if (launcher.user === undefined) {
    return { userDataDir: folder.path, release: async () => {} };
  }
  const owner = await ownerOf(folder.path);
  return { userDataDir: folder.path, release: () => giveBack(folder.path, owner) };
}
