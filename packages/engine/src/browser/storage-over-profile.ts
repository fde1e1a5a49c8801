import type { BrowserContext } from "playwright-core";
import type { StorageState } from "./browser-snapshot.js";

/** How long writing one origin's localStorage may take. */
const ORIGIN_TIMEOUT_MS = 10_000;

/** The page's localStorage, as far as it is used here: this package has no DOM types. */
interface PageStorage {
  localStorage: { setItem(name: string, value: string): void };
}

/**
 * Adds a storage state (a saved browser profile's, a checkpoint's) over what a profile folder's
 * browser already holds: its cookies replace the folder's of the same name, domain and path, its
 * localStorage items the folder's of the same name, and the folder keeps everything else.
 * (Playwright's `setStorageState` would clear the folder's storage first.) Each origin's items
 * are written from a page of that origin whose every request is answered here, so nothing is
 * fetched from the site and no step sees the page.
 */
export async function addStorageState(context: BrowserContext, state: StorageState): Promise<void> {
  if (state.cookies.length > 0) await context.addCookies(state.cookies);
  for (const { origin, localStorage } of state.origins) {
    if (localStorage.length === 0) continue;
    const page = await context.newPage();
    try {
      await page.route("**/*", (route) =>
        route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html>" }),
      );
      await page.goto(origin, { timeout: ORIGIN_TIMEOUT_MS });
      // Runs in the page: a function Playwright calls there with `items`.
      await page.evaluate((items) => {
        const { localStorage: storage } = globalThis as unknown as PageStorage;
        for (const { name, value } of items) storage.setItem(name, value);
      }, localStorage);
    } finally {
      await page.close();
    }
  }
}
