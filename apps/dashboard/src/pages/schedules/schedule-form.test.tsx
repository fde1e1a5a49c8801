import { describe, expect, it } from "vitest";
import { CallFailed } from "../../api/errors.js";
import { json, refused, renderWithApi } from "../../test-support/api.js";
import { input, skill } from "../../test-support/fixtures.js";
import { button, click, find, type, waitFor } from "../../test-support/render.js";
import { ScheduleForm } from "./schedule-form.js";
import { scheduleIssues } from "./use-create-schedule.js";

const signIn = skill({
  id: "skill_backoffice_saved_login",
  inputs: [
    input({ json_key: "user", data_type: "string", required: false, default: "demo" }),
    input({ json_key: "password", data_type: "string", secret: true }),
  ],
});

const NEXT_RUNS = ["2026-11-30T07:00:00.000+01:00", "2026-12-01T07:00:00.000+01:00"];

/** A server that previews any cron as NEXT_RUNS and answers the creation with `created`. */
function server(created: () => Response) {
  return async (request: Request) => {
    if (new URL(request.url).pathname === "/v1/schedule/next_runs") {
      const body = (await request.json()) as { cron: string; timezone: string };
      return json({ ...body, next_runs: NEXT_RUNS });
    }
    return created();
  };
}

/** The form's control for the field named `name`. */
function control<E extends HTMLElement = HTMLInputElement>(container: ParentNode, name: string) {
  return find<E>(container, `[name="${name}"]`);
}

/** The issue shown under a control, by its aria-describedby. */
function issueOf(container: HTMLElement, name: string): string | null | undefined {
  const ids = control(container, name).getAttribute("aria-describedby")?.split(" ") ?? [];
  const errorId = ids.find((id) => id.endsWith("-error"));
  return errorId ? container.querySelector(`[id="${errorId}"]`)?.textContent : undefined;
}

describe("the schedule form", () => {
  it("sends the inputs with the cron, zone, overlap and catch-up, then opens the schedules", async () => {
    const { container, calls, bodies } = await renderWithApi(
      <ScheduleForm skill={signIn} />,
      server(() => json({}, 201)),
    );
    expect(control(container, "cron").value).toBe("0 7 * * MON-FRI");
    expect(control(container, "user").value).toBe("demo");
    await type(control(container, "timezone"), "Europe/Berlin");
    await type(control(container, "password"), "demo-password");
    await type(control(container, "catchup"), "1h");
    const overlap = control<HTMLSelectElement>(container, "overlap");
    overlap.value = "buffer_one";
    overlap.dispatchEvent(new Event("change", { bubbles: true }));
    await click(button(container, "Create schedule"));
    await waitFor(() => expect(window.location.pathname).toBe("/ui/schedules"));
    expect(bodies[calls.indexOf("POST /schedule")]).toEqual({
      skill_id: "skill_backoffice_saved_login",
      inputs: { user: "demo", password: "demo-password" },
      cron: "0 7 * * MON-FRI",
      timezone: "Europe/Berlin",
      overlap: "buffer_one",
      catchup: "1h",
      paused: false,
    });
  });

  it("previews the next runs the server computes for the cron and zone typed, once typing settles", async () => {
    const { container, calls, bodies } = await renderWithApi(
      <ScheduleForm skill={signIn} />,
      server(() => json({}, 201)),
    );
    // The first values are asked for at once.
    const asked = () =>
      calls.flatMap((call, i) => (call === "POST /schedule/next_runs" ? [bodies[i]] : []));
    await waitFor(() => find(container, ".next-runs-preview li"));
    expect(asked()).toHaveLength(1);
    await type(control(container, "timezone"), "Europe/Berlin");
    await waitFor(() =>
      expect(asked().at(-1)).toEqual({ cron: "0 7 * * MON-FRI", timezone: "Europe/Berlin" }),
    );
    expect(asked()).toHaveLength(2);
    await waitFor(() => find(container, ".next-runs-preview li"));
    expect(
      [...container.querySelectorAll(".next-runs-preview li")].map((li) => li.textContent),
    ).toEqual(["2026-11-30 07:00 +01:00", "2026-12-01 07:00 +01:00"]);
  });

  it("says why a cron has no next runs, as the server words it", async () => {
    const { container } = await renderWithApi(<ScheduleForm skill={signIn} />, () =>
      refused([["body", "cron"], "Value error, the cron names no time to come"]),
    );
    await waitFor(() =>
      expect(find(container, ".next-runs-preview").textContent).toBe(
        "Next runsNone: the cron names no time to come",
      ),
    );
    // A preview's refusal is no refusal of the form: no field is marked before it is sent.
    expect(container.querySelector('[aria-invalid="true"]')).toBeNull();
  });

  it("shows the server's refusal of the cron, the zone and an input at each one's field", async () => {
    const { container } = await renderWithApi(
      <ScheduleForm skill={signIn} />,
      server(() =>
        refused(
          [["body", "cron"], "the cron fires every 1 s, more often than every 60 s"],
          [["body", "timezone"], "unknown time zone Mars/Olympus"],
          [["body", "inputs", "password"], "Field required"],
        ),
      ),
    );
    await click(button(container, "Create schedule"));
    await waitFor(() =>
      expect(control(container, "cron").getAttribute("aria-invalid")).toBe("true"),
    );
    expect(issueOf(container, "cron")).toBe("the cron fires every 1 s, more often than every 60 s");
    expect(issueOf(container, "timezone")).toBe("unknown time zone Mars/Olympus");
    expect(issueOf(container, "password")).toBe("Field required");
    expect(control(container, "catchup").getAttribute("aria-invalid")).toBeNull();
    expect(find(container, '[role="alert"]').textContent).toBe(
      "The schedule was not created: see the fields marked above.",
    );
  });
});

describe("a refused schedule's issues", () => {
  it("are sorted into inputs, timing fields and the rest", () => {
    const error = new CallFailed(422, "refused", [
      { loc: ["body", "inputs", "user"], msg: "too long", type: "x" },
      { loc: ["body", "catchup"], msg: "catchup is at most 24h", type: "x" },
      { loc: ["body"], msg: "too many schedules", type: "x" },
    ]);
    expect(scheduleIssues(error)).toEqual({
      inputs: { user: "too long" },
      timing: { catchup: "catchup is at most 24h" },
      other: "too many schedules",
    });
    expect(scheduleIssues(new Error("offline"))).toEqual({
      inputs: {},
      timing: {},
      other: undefined,
    });
  });
});
