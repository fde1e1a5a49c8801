import { describe, expect, it } from "vitest";
import { json, refused, renderWithApi } from "../../test-support/api.js";
import { button, click, find, type, waitFor } from "../../test-support/render.js";
import type { Delivery, Webhook } from "./webhook-types.js";
import { WebhooksPage } from "./webhooks-page.js";

const hook: Webhook = {
  id: "wh_1",
  url: "https://example.com/hook",
  events: ["run.finished", "run.failed"],
  created_at: "2026-01-01T00:00:00Z",
  disabled_at: null,
  disabled_reason: null,
};

const delivery: Delivery = {
  id: "dl_1",
  webhook_id: "wh_1",
  run_id: "run_0123456789abcdef0123",
  event: "run.finished",
  created_at: "2026-01-01T00:00:00Z",
  state: "delivered",
  next_attempt_at: null,
  attempts: [
    { at: "2026-01-01T00:00:00Z", status: null, latency_ms: 30, response: null, error: "refused" },
    { at: "2026-01-01T00:00:01Z", status: 204, latency_ms: 12, response: null, error: null },
  ],
};

/** A server holding `webhooks`, answering every other call with `other`. */
function server(webhooks: Webhook[], other: (request: Request) => Response = () => json({})) {
  return (request: Request) => {
    const path = new URL(request.url).pathname;
    if (request.method === "GET" && path === "/v1/webhook/list") return json(webhooks);
    if (path === "/v1/webhook/wh_1/deliveries") return json([delivery]);
    return other(request);
  };
}

describe("the webhooks page", () => {
  it("says when there are no endpoints", async () => {
    const { container } = await renderWithApi(<WebhooksPage />, server([]));
    await waitFor(() => expect(container.textContent).toContain("No endpoints yet."));
  });

  it("adds an endpoint for the ticked events and shows its secret until dismissed", async () => {
    const created = { ...hook, secret: "whsec_abc" };
    const { container, calls, bodies } = await renderWithApi(
      <WebhooksPage />,
      server([], () => json(created, 201)),
    );
    await type(find(container, "#webhook-url"), " https://example.com/hook ");
    await click(find(container, 'input[type="checkbox"]'));
    await click(button(container, "Add endpoint"));
    await waitFor(() =>
      expect(find<HTMLInputElement>(container, "#new-secret").value).toBe("whsec_abc"),
    );
    expect(bodies[calls.indexOf("POST /webhook")]).toEqual({
      url: "https://example.com/hook",
      events: ["run.failed", "run.cancelled", "run.timeout", "run.paused"],
    });
    expect(find<HTMLInputElement>(container, "#webhook-url").value).toBe("");
    await click(button(container, "I have copied it"));
    expect(container.querySelector("#new-secret")).toBeNull();
  });

  it("shows a refused address at its field", async () => {
    const { container } = await renderWithApi(
      <WebhooksPage />,
      server([], () => refused([["body", "url"], "must be http or https"])),
    );
    await click(button(container, "Add endpoint"));
    await waitFor(() =>
      expect(find(container, "#webhook-url").getAttribute("aria-invalid")).toBe("true"),
    );
    expect(find(container, "#webhook-url-error").textContent).toBe("must be http or https");
    expect(container.querySelector('[role="alert"]')).toBeNull();
  });

  it("asks once more before deleting, and can keep the endpoint", async () => {
    const { container, calls } = await renderWithApi(<WebhooksPage />, server([hook]));
    await waitFor(() => find(container, 'li[data-webhook="wh_1"]'));
    await click(button(container, "Delete"));
    await click(button(container, "Keep it"));
    expect(calls).not.toContain("DELETE /webhook/wh_1");
    await click(button(container, "Delete"));
    await click(button(container, "Delete it and its deliveries"));
    await waitFor(() => expect(calls).toContain("DELETE /webhook/wh_1"));
  });

  it("shows an endpoint's deliveries with their last attempt, and redelivers one", async () => {
    const { container, calls } = await renderWithApi(
      <WebhooksPage />,
      server([hook], () => json(delivery, 202)),
    );
    await waitFor(() => find(container, 'li[data-webhook="wh_1"]'));
    expect(container.textContent).toContain("run.finished, run.failed · added");
    await click(button(container, "Show deliveries"));
    await waitFor(() => find(container, 'tr[data-delivery="dl_1"]'));
    const row = find<HTMLTableRowElement>(container, 'tr[data-delivery="dl_1"]');
    const cells = [...row.querySelectorAll("td")].map((cell) => cell.textContent);
    expect(cells.slice(0, 3)).toEqual(["run.finished", "run_0123456789ab…", "delivered"]);
    expect(cells[3]).toMatch(/^HTTP 204 · 12 ms · .+ \(2 attempts\)$/);
    await click(button(row, "Redeliver"));
    await waitFor(() => expect(calls).toContain("POST /webhook/wh_1/deliveries/dl_1/redeliver"));
  });
});
