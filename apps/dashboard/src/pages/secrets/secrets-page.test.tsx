import { describe, expect, it } from "vitest";
import { json, refused, renderWithApi } from "../../test-support/api.js";
import { button, click, find, type, waitFor } from "../../test-support/render.js";
import { SecretsPage } from "./secrets-page.js";

const token = {
  name: "SHOP_TOKEN",
  created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z",
};

/** A server holding `secrets`, answering every other call with `other`. */
function server(secrets: (typeof token)[], other: (request: Request) => Response = () => json({})) {
  return (request: Request) => {
    const path = new URL(request.url).pathname;
    if (request.method === "GET" && path === "/v1/secret/list") return json(secrets);
    return other(request);
  };
}

describe("the secrets page", () => {
  it("lists the secrets by name alone, and says when there are none", async () => {
    const listed = await renderWithApi(<SecretsPage />, server([token]));
    await waitFor(() => find(listed.container, 'tr[data-secret="SHOP_TOKEN"]'));
    expect(find(listed.container, "thead").textContent).toBe("NameValue last setActions");
    const empty = await renderWithApi(<SecretsPage />, server([]));
    await waitFor(() => expect(empty.container.textContent).toContain("No secrets yet."));
  });

  it("sets a value typed in a password field, then forgets it", async () => {
    const { container, calls, bodies } = await renderWithApi(
      <SecretsPage />,
      server([], () => json(token)),
    );
    const value = find<HTMLInputElement>(container, "#secret-value");
    expect(value.type).toBe("password");
    await type(find(container, "#secret-name"), " SHOP_TOKEN ");
    await type(value, "s3cr3t");
    await click(button(container, "Set secret"));
    await waitFor(() =>
      expect(container.textContent).toContain(
        "Secret SHOP_TOKEN set. Skills read it as secrets.SHOP_TOKEN.",
      ),
    );
    expect(bodies[calls.indexOf("PUT /secret/SHOP_TOKEN")]).toEqual({ value: "s3cr3t" });
    expect(value.value).toBe("");
  });

  it("shows a refusal at the field it names, without FastAPI's prefix", async () => {
    const { container } = await renderWithApi(
      <SecretsPage />,
      server([], () => refused([["path", "name"], "Value error, must start with a letter or _"])),
    );
    await type(find(container, "#secret-name"), "9lives");
    await type(find(container, "#secret-value"), "x");
    await click(button(container, "Set secret"));
    await waitFor(() =>
      expect(find(container, "#secret-name-error").textContent).toBe(
        "must start with a letter or _",
      ),
    );
    expect(find(container, "#secret-name").getAttribute("aria-invalid")).toBe("true");
  });

  it("deletes a secret only when asked twice", async () => {
    const { container, calls } = await renderWithApi(
      <SecretsPage />,
      server([token], () => new Response(null, { status: 204 })),
    );
    await waitFor(() => find(container, 'tr[data-secret="SHOP_TOKEN"]'));
    await click(button(container, "Delete"));
    expect(calls.some((call) => call.startsWith("DELETE"))).toBe(false);
    await click(button(container, "Keep it"));
    await click(button(container, "Delete"));
    await click(button(container, "Delete for good"));
    await waitFor(() => expect(calls).toContain("DELETE /secret/SHOP_TOKEN"));
  });
});
