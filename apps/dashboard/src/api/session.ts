import { createSkillrunClient, type SkillrunClient } from "@skillrun/client";

const KEY_ITEM = "skillrun.apiKey";

/**
 * The API key of the signed-in user, never in a URL: in sessionStorage (this tab only, gone with
 * it), or in localStorage (every tab of this browser profile, until sign-out) when the user chose
 * "remember on this device" (see docs/security.md). Signing out clears both.
 */
export const storedKey = {
  read: (): string | null => sessionStorage.getItem(KEY_ITEM) ?? localStorage.getItem(KEY_ITEM),
  write: (key: string, remember = false): void => {
    storedKey.clear();
    (remember ? localStorage : sessionStorage).setItem(KEY_ITEM, key);
  },
  clear: (): void => {
    sessionStorage.removeItem(KEY_ITEM);
    localStorage.removeItem(KEY_ITEM);
  },
};

/**
 * The typed client of the API on this server, authenticated with `apiKey`. Any 401 answer calls
 * `onUnauthorized` (the key was revoked or mistyped), which returns the user to sign-in.
 */
export function clientFor(apiKey: string, onUnauthorized: () => void): SkillrunClient {
  const client = createSkillrunClient({ baseUrl: `${window.location.origin}/v1`, apiKey });
  client.use({
    onResponse({ response }) {
      if (response.status === 401) onUnauthorized();
      return undefined;
    },
  });
  return client;
}
