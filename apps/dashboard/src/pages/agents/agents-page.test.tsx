import { describe, expect, it } from "vitest";
import { json, renderWithApi } from "../../test-support/api.js";
import { waitFor } from "../../test-support/render.js";
import { AgentsPage } from "./agents-page.js";

const agent = {
  id: "agent_0123456789abcdef0123456789abcdef",
  name: "ada-laptop",
  version: "0.0.2",
  created_at: "2026-01-01T00:00:00.000Z",
  last_contact_at: new Date().toISOString(),
  connected: true,
  runs: ["run_0123456789abcdef0123"],
};

function server(agents: unknown[]) {
  return (request: Request) =>
    new URL(request.url).pathname === "/v1/agent/list" ? json(agents) : json({}, 404);
}

describe("the agents page", () => {
  it("says when no agent has called", async () => {
    const { container } = await renderWithApi(<AgentsPage />, server([]));
    await waitFor(() =>
      expect(container.textContent).toContain("No agent has called within the last day"),
    );
  });

  it("shows each agent, whether it is connected, and links the runs it holds", async () => {
    const idle = { ...agent, id: "agent_fedcba9876543210fedcba9876543210", name: "old-box" };
    const { container } = await renderWithApi(
      <AgentsPage />,
      server([agent, { ...idle, connected: false, runs: [] }]),
    );
    await waitFor(() => expect(container.querySelectorAll("tbody tr")).toHaveLength(2));
    const [first, second] = [...container.querySelectorAll("tbody tr")].map((row) =>
      [...row.querySelectorAll("td")].map((cell) => cell.textContent),
    );
    expect(first?.slice(1, 3)).toEqual(["0.0.2", "connected"]);
    expect(second?.slice(2, 3)).toEqual(["not connected"]);
    expect(second?.[4]).toBe("none");
    const link = container.querySelector<HTMLAnchorElement>("tbody a");
    expect(link?.getAttribute("href")).toBe("/ui/runs/run_0123456789abcdef0123");
  });
});
