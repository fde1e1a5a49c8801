import { describe, expect, it } from "vitest";
import { input } from "../../test-support/fixtures.js";
import { render } from "../../test-support/render.js";
import { SkillInputs } from "./skill-inputs.js";

describe("a skill's declared inputs", () => {
  it("say so when there are none", async () => {
    const { container } = await render(<SkillInputs inputs={[]} />);
    expect(container.textContent).toBe("None.");
  });

  it("show each key (secret ones marked), type, whether required, and default as JSON", async () => {
    const inputs = [
      input({ json_key: "seats", data_type: "number", default: 3, description: "How many" }),
      input({ json_key: "password", data_type: "string", secret: true, required: false }),
    ];
    const { container } = await render(<SkillInputs inputs={inputs} />);
    const cells = [...container.querySelectorAll("tbody tr")].map((row) =>
      [...row.querySelectorAll("td")].map((cell) => cell.textContent),
    );
    expect(cells).toEqual([
      ["seatsHow many", "number", "yes", "3"],
      ["password (secret)", "string", "no", "—"],
    ]);
  });
});
