import { createSkillrunClient, type SkillrunClient } from "@skillrun/client";

const KEY_ITEM = "skillrun.apiKey";

/** The API key of this tab's session: kept in sessionStorage (gone with the tab), never in a URL. */
export const storedKey = {
  read: (): string | null => sessionStorage.getItem(KEY_ITEM),
  write: (key: string): void => sessionStorage.setItem(KEY_ITEM, key),
  clear: (): void => sessionStorage.removeItem(KEY_ITEM),
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
