import type { StorageState, StoredCookie, StoredOrigin } from "@skillrun/engine";
import type { Profile } from "../domain/api-types.js";

/** What the API shows of a profile's storage: counts and dates, never a value. */
export type ProfileSummary = Pick<Profile, "cookies" | "domains" | "origins">;

/**
 * A storage state with only the fields a browser takes: what the API or a run gave, checked
 * already (the contract's StorageState, or the engine's own), with whatever else it carried left
 * out, so nothing unknown is stored or handed to a browser.
 */
export function keptStorageState(given: {
  cookies: readonly StoredCookie[];
  origins?: readonly StoredOrigin[] | undefined;
}): StorageState {
  return {
    cookies: given.cookies.map((cookie) => ({
      name: cookie.name,
      value: cookie.value,
      domain: cookie.domain,
      path: cookie.path,
      expires: cookie.expires,
      httpOnly: cookie.httpOnly,
      secure: cookie.secure,
      sameSite: cookie.sameSite,
    })),
    origins: (given.origins ?? []).map((origin) => ({
      origin: origin.origin,
      localStorage: origin.localStorage.map(({ name, value }) => ({ name, value })),
    })),
  };
}

/**
 * What a profile's description says of its storage: per cookie domain (without a leading dot)
 * the number of cookies and the earliest expiry (null when all are session cookies), and the
 * origins with their number of localStorage items. Computed when the state is written, so that
 * no read of a description opens the sealed state.
 */
export function profileSummary(state: StorageState): ProfileSummary {
  const domains = new Map<string, { cookies: number; earliest: number | null }>();
  for (const cookie of state.cookies) {
    const domain = cookie.domain.replace(/^\./, "");
    const entry = domains.get(domain) ?? { cookies: 0, earliest: null };
    entry.cookies += 1;
    if (cookie.expires >= 0 && (entry.earliest === null || cookie.expires < entry.earliest)) {
      entry.earliest = cookie.expires;
    }
    domains.set(domain, entry);
  }
  return {
    cookies: state.cookies.length,
    domains: [...domains.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([domain, { cookies, earliest }]) => ({
        domain,
        cookies,
        earliest_expiry: earliest === null ? null : expiryOf(earliest),
      })),
    origins: state.origins
      .map((origin) => ({ origin: origin.origin, items: origin.localStorage.length }))
      .sort((a, b) => (a.origin < b.origin ? -1 : a.origin > b.origin ? 1 : 0)),
  };
}

// Past the largest date JavaScript has (a cookie may say it expires in the year 275760 or later).
const LATEST_MS = 8.64e15;

function expiryOf(seconds: number): string {
  return new Date(Math.min(seconds * 1000, LATEST_MS)).toISOString();
}
