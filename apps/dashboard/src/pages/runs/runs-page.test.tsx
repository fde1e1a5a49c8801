import { beforeEach, describe, expect, it } from "vitest";
import { json, renderWithApi } from "../../test-support/api.js";
import { runSession } from "../../test-support/fixtures.js";
import { button, click, find, type, waitFor } from "../../test-support/render.js";
import { RunsPage } from "./runs-page.js";

const older = runSession({ id: "run_old" });
const newer = runSession({ id: "run_new" });

/** The server's run list: two pages, the first linking to the second by its cursor. */
function twoPages(request: Request): Response {
  const url = new URL(request.url);
  if (url.pathname.endsWith("/skill/list")) return json([]);
  if (url.searchParams.get("cursor") === "c2") return json([older]);
  return json([newer], 200, { Link: '</v1/run/list?limit=25&cursor=c2>; rel="next"' });
}

function rows(container: HTMLElement): (string | null)[] {
  return [...container.querySelectorAll("tr[data-run]")].map((row) => row.getAttribute("data-run"));
}

beforeEach(() => window.history.replaceState(null, "", "/ui/"));

describe("the runs page", () => {
  it("explains how to start a first run when there is none", async () => {
    const { container } = await renderWithApi(<RunsPage />, () => json([]));
    await waitFor(() => expect(find(container, "h2").textContent).toBe("No runs yet"));
  });

  it("says that no run matches when a filtered list is empty", async () => {
    window.history.replaceState(null, "", "/ui/?state=cancel");
    const { container, calls } = await renderWithApi(<RunsPage />, () => json([]));
    await waitFor(() => expect(container.textContent).toContain("No run matches these filters."));
    expect(calls).toContain("GET /run/list?limit=25&state_filter=cancel");
  });

  it("keeps a chosen filter in the address and lists by it", async () => {
    const { container, calls } = await renderWithApi(<RunsPage />, () => json([]));
    await type(find<HTMLSelectElement>(container, "#filter-state"), "pause");
    expect(window.location.search).toBe("?state=pause");
    await waitFor(() => expect(calls).toContain("GET /run/list?limit=25&state_filter=pause"));
  });

  it("pages to older runs by the next cursor and back to newer ones", async () => {
    const { container, calls } = await renderWithApi(<RunsPage />, twoPages);
    await waitFor(() => expect(rows(container)).toEqual(["run_new"]));
    expect(button(container, "Newer runs").disabled).toBe(true);

    await click(button(container, "Older runs"));
    await waitFor(() => expect(rows(container)).toEqual(["run_old"]));
    expect(calls).toContain("GET /run/list?limit=25&cursor=c2");
    expect(button(container, "Older runs").disabled).toBe(true);

    await click(button(container, "Newer runs"));
    await waitFor(() => expect(rows(container)).toEqual(["run_new"]));
  });

  it("has no pager when everything fits on one page", async () => {
    const { container } = await renderWithApi(<RunsPage />, (request) =>
      json(request.url.includes("/skill/") ? [] : [newer]),
    );
    await waitFor(() => expect(rows(container)).toEqual(["run_new"]));
    expect(container.querySelector("nav")).toBeNull();
  });
});
