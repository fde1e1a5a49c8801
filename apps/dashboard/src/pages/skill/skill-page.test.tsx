import { beforeEach, describe, expect, it } from "vitest";
import { json, renderWithApi } from "../../test-support/api.js";
import { input, runSession, skill } from "../../test-support/fixtures.js";
import { button, click, find, waitFor } from "../../test-support/render.js";
import { SkillPage } from "./skill-page.js";

const signIn = skill({
  id: "skill_sign_in",
  name: "Sign in somewhere",
  x_version: "0123456789abcdef",
  x_definition: { id: "skill_sign_in", steps: [{ log: "hi" }] },
  inputs: [
    input({ json_key: "user", data_type: "string" }),
    input({ json_key: "password", data_type: "string", secret: true }),
  ],
});

/** The server: the skill, and one earlier run of it whose password the API masks. */
function server(request: Request): Response {
  const path = new URL(request.url).pathname;
  if (path === "/v1/skill/skill_sign_in") return json(signIn);
  if (path === "/v1/run/run_1")
    return json(runSession({ inputs: { user: "ada", password: "***" } }));
  return json({ detail: "Not found" }, 404);
}

beforeEach(() => window.history.replaceState(null, "", "/ui/skills/skill_sign_in"));

describe("the skill page", () => {
  it("shows the skill's version shortened, its definition as YAML, and an empty run form", async () => {
    const { container } = await renderWithApi(<SkillPage id="skill_sign_in" />, server);
    await waitFor(() => expect(find(container, "h1").textContent).toBe("Sign in somewhere"));
    const version = find(container, ".facts dd.mono");
    expect([version.textContent, version.title]).toEqual(["0123456789ab", "0123456789abcdef"]);
    expect(find(container, "details pre").textContent).toBe(
      "id: skill_sign_in\nsteps:\n  - log: hi\n",
    );
    expect(find<HTMLInputElement>(container, 'input[name="user"]').value).toBe("");
    expect(container.querySelector(".note")).toBeNull();
  });

  it("fills the form with a run's inputs to run it again, its masked secret to be typed", async () => {
    window.history.replaceState(null, "", "/ui/skills/skill_sign_in?again=run_1");
    const { container } = await renderWithApi(<SkillPage id="skill_sign_in" />, server);
    await waitFor(() =>
      expect(find<HTMLInputElement>(container, 'input[name="user"]').value).toBe("ada"),
    );
    expect(find<HTMLInputElement>(container, 'input[name="password"]').value).toBe("");
    expect(find(container, ".note").textContent).toBe(
      "The inputs of run run_1; type its secret inputs again.",
    );
  });

  it("switches the run form to a schedule's form, with the same inputs and the cron's fields", async () => {
    const { container } = await renderWithApi(<SkillPage id="skill_sign_in" />, server);
    await waitFor(() => find(container, "form.run-form"));
    expect(container.querySelector("form.schedule-form")).toBeNull();
    await click(find(container, 'input[type="radio"]:not(:checked)'));
    const form = find(container, "form.schedule-form");
    const names = [...form.querySelectorAll("input, select")].map((c) => c.getAttribute("name"));
    expect(names).toEqual(["cron", "timezone", "overlap", "catchup", "user", "password"]);
    expect(button(container, "Create schedule")).toBeTruthy();
    expect(container.querySelectorAll("form")).toHaveLength(1);
  });

  it("says when the skill cannot be read, with a way back", async () => {
    const { container } = await renderWithApi(<SkillPage id="skill_gone" />, server);
    await waitFor(() =>
      expect(find(container, '[role="alert"]').textContent).toBe(
        "Skill skill_gone could not be read: Not found",
      ),
    );
    expect(find(container, "a").getAttribute("href")).toBe("/ui/skills");
  });
});
