import { describe, expect, it } from "vitest";
import { json, renderWithApi } from "../../test-support/api.js";
import { runSession } from "../../test-support/fixtures.js";
import { button, click, find, waitFor } from "../../test-support/render.js";
import type { Schedule, ScheduleTick } from "./schedule-types.js";
import { SchedulesPage } from "./schedules-page.js";

const daily: Schedule = {
  id: "sch_1",
  skill_id: "skill_backoffice_saved_login",
  owner: "demo",
  inputs: { user: "demo", password: "***" },
  cron: "0 7 * * MON-FRI",
  timezone: "Europe/Berlin",
  overlap: "skip",
  catchup: "1h",
  jitter: "0",
  paused: false,
  paused_reason: null,
  pause_after_failures: 3,
  failures_in_row: 1,
  next_runs: ["2026-11-30T07:00:00.000+01:00", "2026-12-01T07:00:00.000+01:00"],
  last_run_id: "run_0123456789abcdef0123",
  created_at: "2026-11-01T00:00:00Z",
  updated_at: "2026-11-01T00:00:00Z",
};

const ticks: ScheduleTick[] = [
  {
    scheduled_for: "2026-11-27T07:00:00.000+01:00",
    at: "2026-11-27T06:00:00.100Z",
    outcome: "skipped",
    run_id: null,
    reason: "overlap",
    message: "the last run had not ended",
    manual: false,
  },
  {
    scheduled_for: "2026-11-26T07:00:00.000+01:00",
    at: "2026-11-26T06:00:00.100Z",
    outcome: "fired",
    run_id: "run_0123456789abcdef0123",
    reason: null,
    message: null,
    manual: false,
  },
];

/** A server holding `schedules`, answering every other call with `other`. */
function server(schedules: Schedule[], other: (request: Request) => Response = () => json({})) {
  return (request: Request) => {
    const path = new URL(request.url).pathname;
    if (request.method === "GET" && path === "/v1/schedule/list") return json(schedules);
    if (path === "/v1/schedule/sch_1/ticks") return json(ticks);
    if (path === "/v1/run/run_0123456789abcdef0123")
      return json(runSession({ id: "run_0123456789abcdef0123", state: "reset" }));
    return other(request);
  };
}

describe("the schedules page", () => {
  it("says when there are no schedules", async () => {
    const { container } = await renderWithApi(<SchedulesPage />, server([]));
    await waitFor(() => expect(container.textContent).toContain("No schedules yet."));
  });

  it("shows each schedule's skill, cron and zone, state, next runs in its zone, and last run's state", async () => {
    const { container } = await renderWithApi(<SchedulesPage />, server([daily]));
    await waitFor(() => find(container, 'li[data-schedule="sch_1"] .state-reset'));
    const item = find(container, 'li[data-schedule="sch_1"]');
    expect(find(item, "h3").textContent).toBe("skill_backoffice_saved_login");
    expect(find(item, "h3 a").getAttribute("href")).toBe("/ui/skills/skill_backoffice_saved_login");
    expect(item.querySelector("p.muted")?.textContent).toBe(
      "0 7 * * MON-FRI in Europe/Berlin · overlap skip · catch-up 1h · active",
    );
    expect([...item.querySelectorAll(".next-runs li")].map((li) => li.textContent)).toEqual([
      "2026-11-30 07:00 +01:00",
      "2026-12-01 07:00 +01:00",
    ]);
    expect(find(item, "dl").textContent).toContain(
      "Last runrun_0123456789ab… ✕Failed · 1 failed in a row (pauses at 3)",
    );
  });

  it("pauses an active schedule and resumes a paused one", async () => {
    const paused = { ...daily, id: "sch_2", paused: true, paused_reason: "failures" as const };
    const { container, calls, bodies } = await renderWithApi(
      <SchedulesPage />,
      server([daily, paused], () => json(daily)),
    );
    await waitFor(() => find(container, 'li[data-schedule="sch_2"]'));
    expect(find(container, 'li[data-schedule="sch_2"] p.muted').textContent).toContain(
      "paused after failed runs",
    );
    await click(button(find(container, 'li[data-schedule="sch_1"]'), "Pause"));
    await waitFor(() => expect(calls).toContain("PATCH /schedule/sch_1"));
    expect(bodies[calls.indexOf("PATCH /schedule/sch_1")]).toEqual({ paused: true });
    await click(button(find(container, 'li[data-schedule="sch_2"]'), "Resume"));
    await waitFor(() => expect(calls).toContain("PATCH /schedule/sch_2"));
    expect(bodies[calls.indexOf("PATCH /schedule/sch_2")]).toEqual({ paused: false });
  });

  it("lists a schedule's ticks: the run of a fired one, the reason of a skipped one", async () => {
    const { container } = await renderWithApi(<SchedulesPage />, server([daily]));
    await waitFor(() => find(container, 'li[data-schedule="sch_1"]'));
    await click(button(container, "Show ticks"));
    await waitFor(() => find(container, 'tr[data-outcome="fired"]'));
    const cells = (selector: string) =>
      [...find(container, selector).querySelectorAll("td")].map((cell) => cell.textContent);
    const skipped = cells('tr[data-outcome="skipped"]');
    expect([skipped[0], skipped[2], skipped[3]]).toEqual([
      "2026-11-27 07:00 +01:00",
      "skipped",
      "overlap: the last run had not ended",
    ]);
    const fired = cells('tr[data-outcome="fired"]');
    expect([fired[0], fired[2], fired[3]]).toEqual([
      "2026-11-26 07:00 +01:00",
      "fired",
      "run_0123456789ab…",
    ]);
    expect(find(container, 'tr[data-outcome="fired"] a').getAttribute("href")).toBe(
      "/ui/runs/run_0123456789abcdef0123",
    );
  });

  it("asks once more before deleting, and can keep the schedule", async () => {
    const { container, calls } = await renderWithApi(
      <SchedulesPage />,
      server([daily], () => new Response(null, { status: 204 })),
    );
    await waitFor(() => find(container, 'li[data-schedule="sch_1"]'));
    await click(button(container, "Delete"));
    await click(button(container, "Keep it"));
    expect(calls).not.toContain("DELETE /schedule/sch_1");
    await click(button(container, "Delete"));
    await click(button(container, "Delete the schedule"));
    await waitFor(() => expect(calls).toContain("DELETE /schedule/sch_1"));
  });
});
