import { describe, expect, it } from "vitest";
import { json, renderWithApi } from "../../test-support/api.js";
import { button, click, find, waitFor } from "../../test-support/render.js";
import type { Profile } from "./profile-types.js";
import { ProfilesPage } from "./profiles-page.js";

const saved: Profile = {
  name: "backoffice-demo",
  version: 3,
  created_at: "2026-11-01T00:00:00Z",
  updated_at: "2026-11-27T06:00:05Z",
  bytes: 412,
  cookies: 2,
  saved_by_run: "run_0123456789abcdef0123",
  domains: [
    { domain: "127.0.0.1", cookies: 1, earliest_expiry: "2026-11-27T06:30:05Z" },
    { domain: "example.com", cookies: 1, earliest_expiry: null },
  ],
  origins: [{ origin: "http://127.0.0.1:8080", items: 2 }],
};

function server(profiles: Profile[], other: (request: Request) => Response = () => json({})) {
  return (request: Request) => {
    const path = new URL(request.url).pathname;
    if (request.method === "GET" && path === "/v1/profile/list") return json(profiles);
    return other(request);
  };
}

describe("the profiles page", () => {
  it("says when there are no profiles", async () => {
    const { container } = await renderWithApi(<ProfilesPage />, server([]));
    await waitFor(() => expect(container.textContent).toContain("No profiles yet"));
  });

  it("shows a profile's version, the run that saved it, and its cookies by domain", async () => {
    const imported = { ...saved, name: "imported", saved_by_run: null, domains: [], origins: [] };
    const { container } = await renderWithApi(<ProfilesPage />, server([saved, imported]));
    await waitFor(() => find(container, 'li[data-profile="backoffice-demo"]'));
    const item = find(container, 'li[data-profile="backoffice-demo"]');
    expect(find(item, "p.muted").textContent).toMatch(
      /^version 3 · saved .+ · by run run_0123456789ab… · 2 cookies, 412 bytes$/,
    );
    expect(find(item, "p.muted a").getAttribute("href")).toBe("/ui/runs/run_0123456789abcdef0123");
    const rows = [...item.querySelectorAll("tbody tr")].map((row) =>
      [...row.querySelectorAll("td")].map((cell) => cell.textContent),
    );
    expect(rows[0]?.slice(0, 2)).toEqual(["127.0.0.1", "1"]);
    expect(find(item, "tbody time").getAttribute("datetime")).toBe("2026-11-27T06:30:05Z");
    expect(rows[1]).toEqual(["example.com", "1", "when the browser closes"]);
    expect(item.textContent).toContain("localStorage of http://127.0.0.1:8080 (2)");
    expect(find(container, 'li[data-profile="imported"] p.muted').textContent).toContain(
      "· imported ·",
    );
  });

  it("asks once more before deleting, and can keep the profile", async () => {
    const { container, calls } = await renderWithApi(
      <ProfilesPage />,
      server([saved], () => new Response(null, { status: 204 })),
    );
    await waitFor(() => find(container, 'li[data-profile="backoffice-demo"]'));
    await click(button(container, "Delete"));
    await click(button(container, "Keep it"));
    expect(calls).not.toContain("DELETE /profile/backoffice-demo");
    await click(button(container, "Delete"));
    await click(button(container, "Delete it and its saved sign-ins"));
    await waitFor(() => expect(calls).toContain("DELETE /profile/backoffice-demo"));
  });
});
