import type { BrowserSnapshot, StorageState } from "./browser-snapshot.js";

/**
 * The storage a run writes back to its browser profile: the browser's cookies as they are now,
 * and the localStorage of the origins its tabs show, over the profile's own for the origins no
 * tab shows (a snapshot reads localStorage only from open tabs, see browser-snapshot.ts, and a
 * profile must not lose an origin's storage because the run never went there).
 */
export function profileStateOf(
  snapshot: BrowserSnapshot,
  started: StorageState | undefined,
): StorageState {
  const shown = new Set(snapshot.origins.map((origin) => origin.origin));
  const kept = (started?.origins ?? []).filter((origin) => !shown.has(origin.origin));
  return { cookies: snapshot.cookies, origins: [...snapshot.origins, ...kept] };
}
