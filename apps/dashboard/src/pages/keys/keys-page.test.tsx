import { describe, expect, it } from "vitest";
import { json, renderWithApi } from "../../test-support/api.js";
import { button, click, find, type, waitFor } from "../../test-support/render.js";
import { KeysPage } from "./keys-page.js";
import type { ApiKey } from "./use-keys.js";

const nightly: ApiKey = {
  id: "key_1",
  name: "nightly report",
  scopes: ["runs:read", "runs:write"],
  prefix: "sk_Zq3xT9p",
  created_at: "2026-01-01T00:00:00Z",
};

/** A server holding `keys`, answering every other call with `other`. */
function server(keys: ApiKey[], other: (request: Request) => Response = () => json({})) {
  return (request: Request) => {
    const path = new URL(request.url).pathname;
    if (request.method === "GET" && path === "/v1/key/list") return json(keys);
    return other(request);
  };
}

describe("the API keys page", () => {
  it("lists each key's name, first characters, scopes and age", async () => {
    const { container } = await renderWithApi(<KeysPage />, server([nightly]));
    await waitFor(() => find(container, 'tr[data-key="key_1"]'));
    const cells = [...container.querySelectorAll('tr[data-key="key_1"] td')].map(
      (cell) => cell.textContent,
    );
    expect(cells.slice(0, 2)).toEqual(["nightly reportsk_Zq3xT9p…", "runs:read, runs:write"]);
  });

  it("creates a key with the scopes ticked and shows it once, with a copy button", async () => {
    const created = {
      ...nightly,
      id: "key_2",
      scopes: ["runs:read", "secrets:write"],
      key: "sk_new_secret",
    };
    const { container, calls, bodies } = await renderWithApi(
      <KeysPage />,
      server([], () => json(created, 201)),
    );
    await type(find(container, "#key-name"), "nightly report");
    await click(find(container, 'input[value="secrets:write"]'));
    await click(button(container, "Create key"));
    await waitFor(() =>
      expect(find<HTMLInputElement>(container, "#new-key").value).toBe("sk_new_secret"),
    );
    expect(bodies[calls.indexOf("POST /key")]).toEqual({
      name: "nightly report",
      scopes: ["runs:read", "secrets:write"],
    });
    button(container, "Copy the key");
    await click(button(container, "I have copied it"));
    expect(container.querySelector("#new-key")).toBeNull();
  });

  it("revokes a key only when asked twice", async () => {
    const { container, calls } = await renderWithApi(
      <KeysPage />,
      server([nightly], () => new Response(null, { status: 204 })),
    );
    await waitFor(() => find(container, 'tr[data-key="key_1"]'));
    await click(button(container, "Revoke"));
    expect(calls.some((call) => call.startsWith("DELETE"))).toBe(false);
    await click(button(container, "Revoke for good"));
    await waitFor(() => expect(calls).toContain("DELETE /key/key_1"));
  });

  it("says the key signed in with may not manage keys when the list is forbidden", async () => {
    const { container } = await renderWithApi(<KeysPage />, () =>
      json({ detail: "Missing scope: keys:write" }, 403),
    );
    await waitFor(() =>
      expect(container.textContent).toContain("may not manage keys: that takes the keys:write"),
    );
    expect(container.querySelector("form")).toBeNull();
  });
});
