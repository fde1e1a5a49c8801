import { describe, expect, it } from "vitest";
import { json, refused, renderWithApi } from "../../test-support/api.js";
import { input, skill } from "../../test-support/fixtures.js";
import { button, click, find, type, waitFor } from "../../test-support/render.js";
import { RunForm } from "./run-form.js";

const signIn = skill({
  id: "skill_sign_in",
  inputs: [
    input({ json_key: "user", data_type: "string", description: "Who signs in" }),
    input({ json_key: "password", data_type: "string", secret: true }),
    input({ json_key: "seats", data_type: "number", default: 2 }),
    input({ json_key: "items", data_type: "array", required: false }),
  ],
});

function control(container: HTMLElement, name: string): HTMLInputElement {
  return find(container, `[name="${name}"]`);
}

describe("the run form", () => {
  it("says when a skill takes no inputs", async () => {
    const { container } = await renderWithApi(<RunForm skill={skill()} />, () => json({}));
    expect(container.textContent).toContain("This skill takes no inputs.");
  });

  it("labels each input with its type, and hides a secret in a password field", async () => {
    const { container } = await renderWithApi(<RunForm skill={signIn} />, () => json({}));
    const labels = [...container.querySelectorAll("label")].map((label) => label.textContent);
    expect(labels).toEqual([
      "user (string)",
      "password (string, secret)",
      "seats (number)",
      "items (array, optional)",
    ]);
    expect(control(container, "password").type).toBe("password");
    expect(control(container, "seats").value).toBe("2");
  });

  it("offers a file input's picker only the types it accepts", async () => {
    const report = skill({
      id: "skill_report",
      inputs: [
        input({ json_key: "report", data_type: "file", accept: ["text/csv", "image/*"] }),
        input({ json_key: "any", data_type: "file" }),
      ],
    });
    const { container } = await renderWithApi(<RunForm skill={report} />, () => json({}));
    expect(control(container, "report").getAttribute("accept")).toBe("text/csv,image/*");
    expect(control(container, "any").hasAttribute("accept")).toBe(false);
  });

  it("starts the run with what was typed and opens its page", async () => {
    const { container, calls, bodies } = await renderWithApi(<RunForm skill={signIn} />, () =>
      json({ id: "run_9" }, 201),
    );
    await type(control(container, "user"), "ada");
    await type(control(container, "password"), "hunter2");
    await click(button(container, "Run"));
    await waitFor(() => expect(window.location.pathname).toBe("/ui/runs/run_9"));
    expect(calls).toEqual(["POST /run/"]);
    expect(bodies[0]).toEqual({
      skill_id: "skill_sign_in",
      inputs: { user: "ada", password: "hunter2", seats: 2 },
    });
  });

  it("shows a 422 at its field and says the run was not started", async () => {
    const { container } = await renderWithApi(<RunForm skill={signIn} />, () =>
      refused([["body", "inputs", "user"], "Field required"]),
    );
    await click(button(container, "Run"));
    await waitFor(() =>
      expect(control(container, "user").getAttribute("aria-invalid")).toBe("true"),
    );
    const described = control(container, "user").getAttribute("aria-describedby")?.split(" ");
    expect(described?.map((id) => find(container, `[id="${id}"]`).textContent)).toEqual([
      "Who signs in",
      "Field required",
    ]);
    expect(find(container, '[role="alert"]').textContent).toBe(
      "The run was not started: see the fields marked above.",
    );
  });

  it("sends nothing while an input's JSON cannot be read", async () => {
    const { container, calls } = await renderWithApi(<RunForm skill={signIn} />, () => json({}));
    await type(control(container, "items"), "[1,");
    await click(button(container, "Run"));
    await waitFor(() => expect(container.textContent).toContain("Not valid JSON."));
    expect(calls).toEqual([]);
  });

  it("shows a refusal that names no input above the button", async () => {
    const { container } = await renderWithApi(<RunForm skill={signIn} />, () =>
      json({ detail: "The skill is being edited" }, 409),
    );
    await click(button(container, "Run"));
    await waitFor(() =>
      expect(find(container, '[role="alert"]').textContent).toBe("The skill is being edited"),
    );
  });
});
