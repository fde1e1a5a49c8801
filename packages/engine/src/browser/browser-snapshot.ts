import type { BrowserContext, Page } from "playwright-core";
import { firstLine } from "./error-text.js";
import type { Tabs } from "./tabs.js";

/** A cookie as Playwright gives and takes it (`BrowserContext.cookies`, `storageState`). */
export interface StoredCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  /** Unix seconds; -1 for a session cookie. */
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: "Strict" | "Lax" | "None";
}

/** The localStorage of one origin. */
export interface StoredOrigin {
  origin: string;
  localStorage: { name: string; value: string }[];
}

/**
 * What a checkpoint keeps of a run's browser: each tab's address and which is current, and the
 * context's storage (cookies, the localStorage of the origins the tabs show). Not kept: a page's
 * in-memory state, open dialogs, what a form holds that is not in storage, sessionStorage.
 */
export interface BrowserSnapshot {
  tabs: string[];
  current: number;
  cookies: StoredCookie[];
  origins: StoredOrigin[];
}

/**
 * Reads the browser's state: one CDP call for the cookies and one evaluation per tab for its
 * origin's localStorage. Playwright's own `storageState()` would also open a page for every
 * origin visited before, which a step boundary cannot afford; an origin no tab shows any more
 * keeps its cookies only.
 */
export async function snapshotBrowser(
  context: BrowserContext,
  tabs: Tabs,
): Promise<BrowserSnapshot> {
  const { pages, current } = tabs.list();
  // Asked all at once: a checkpoint comes before every step, and each answer is a round trip.
  const [cookies, ...stores] = await Promise.all([
    context.cookies() as Promise<StoredCookie[]>,
    ...pages.map(localStorageOf),
  ]);
  const origins = new Map<string, StoredOrigin>();
  for (const stored of stores) {
    if (stored !== null && !origins.has(stored.origin)) origins.set(stored.origin, stored);
  }
  return {
    tabs: pages.map((page) => page.url()),
    current,
    cookies,
    origins: [...origins.values()],
  };
}

/** How long one tab's localStorage may take to read: a page busy loading is not waited for. */
const READ_TIMEOUT_MS = 1_000;

async function localStorageOf(page: Page): Promise<StoredOrigin | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), READ_TIMEOUT_MS);
  });
  try {
    return await Promise.race([late, readLocalStorage(page)]);
  } finally {
    clearTimeout(timer);
  }
}

/** The page's origin and its localStorage, or null for a page without an origin (about:blank). */
const READ_STORAGE = `(() => {
  const { origin } = window.location;
  if (origin === "null") return null;
  return {
    origin,
    localStorage: Object.entries(window.localStorage).map(([name, value]) => ({ name, value })),
  };
})()`;

async function readLocalStorage(page: Page): Promise<StoredOrigin | null> {
  try {
    // A string, run in the page: this package is not compiled with the DOM's types.
    return (await page.evaluate(READ_STORAGE)) as StoredOrigin | null;
  } catch {
    // A page closing or navigating just now, or one whose storage is denied: nothing to keep.
    return null;
  }
}

/** Playwright's storage state, as a new context takes it. */
export interface StorageState {
  cookies: StoredCookie[];
  origins: StoredOrigin[];
}

/** The storage state a snapshot's browser starts with. */
export function storageStateOf(snapshot: BrowserSnapshot): StorageState {
  return { cookies: snapshot.cookies, origins: snapshot.origins };
}

/** How long reopening one tab's address may take. */
const REOPEN_TIMEOUT_MS = 30_000;

/**
 * Opens the snapshot's tabs again in a context made with its storage state: the first in the
 * context's only page, the others in new ones, then makes the saved current tab current. An
 * address that does not load is told as a problem; the run goes on (its `on_resume` steps may
 * put things right).
 */
export async function reopenTabs(
  context: BrowserContext,
  first: Page,
  tabs: Tabs,
  snapshot: BrowserSnapshot,
  problem: (message: string) => void,
): Promise<void> {
  for (const [index, url] of snapshot.tabs.entries()) {
    const page = index === 0 ? first : await context.newPage();
    if (url === "about:blank" || url === "") continue;
    try {
      await page.goto(url, { timeout: REOPEN_TIMEOUT_MS });
    } catch (error) {
      problem(`tab ${index} was not reopened at ${url}: ${firstLine(error)}`);
    }
  }
  await tabs.show(snapshot.current);
}
