import { describe, expect, it } from "vitest";
import { json, renderWithApi } from "../../test-support/api.js";
import { find } from "../../test-support/render.js";
import { RunsFilterForm } from "./runs-filter-form.js";

describe("the runs filter form", () => {
  it("offers the states runs enter, and not editing, which none does", async () => {
    const { container } = await renderWithApi(
      <RunsFilterForm filters={{ skill: "", state: "" }} onChange={() => {}} />,
      () => json([]),
    );
    const options = [...find(container, "#filter-state").querySelectorAll("option")];
    expect(options.map((option) => option.value)).toEqual([
      "",
      "queued",
      "play",
      "pause",
      "finish",
      "reset",
      "cancel",
      "timeout",
    ]);
  });
});
