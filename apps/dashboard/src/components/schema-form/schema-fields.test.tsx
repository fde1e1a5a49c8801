import { useState } from "react";
import { describe, expect, it } from "vitest";
import { click, find, render, type } from "../../test-support/render.js";
import type { Draft, Schema } from "./schema.js";
import { SchemaFields } from "./schema-fields.js";

const schema: Schema = {
  type: "object",
  required: ["code"],
  properties: {
    code: { type: "string", minLength: 6, maxLength: 6, description: "Six digits" },
    count: { type: "integer", minimum: 1 },
    agree: { type: "boolean" },
    size: { enum: ["S", "M"] },
    extra: { type: "array" },
  },
};

/** The fields as a form holds them: the draft in state, shown below as JSON. */
function Form(props: { issues?: Record<string, string> }) {
  const [draft, setDraft] = useState<Draft>({});
  return (
    <>
      <SchemaFields schema={schema} draft={draft} onChange={setDraft} issues={props.issues ?? {}} />
      <output>{JSON.stringify(draft)}</output>
    </>
  );
}

/** The control whose label starts with `text`. */
function labelled<E extends Element = HTMLInputElement>(container: HTMLElement, text: string): E {
  const label = [...container.querySelectorAll("label")].find((l) =>
    l.textContent?.startsWith(text),
  );
  return find(container, `[id="${label?.htmlFor}"]`);
}

describe("fields generated from a schema", () => {
  it("makes an object a fieldset and each property a control of its type, labelled", async () => {
    const { container } = await render(<Form />);
    expect(find(container, "legend").textContent).toBe("Answer");
    expect(labelled(container, "code").type).toBe("text");
    expect(labelled(container, "code").maxLength).toBe(6);
    expect(labelled(container, "count").type).toBe("number");
    expect(labelled(container, "count").step).toBe("1");
    expect(labelled(container, "agree").type).toBe("checkbox");
    expect(labelled(container, "size").tagName).toBe("SELECT");
    expect(labelled(container, "extra").tagName).toBe("TEXTAREA");
  });

  it("marks required fields and JSON ones in their label, and links the help", async () => {
    const { container } = await render(<Form />);
    const labels = [...container.querySelectorAll("label")].map((label) => label.textContent);
    expect(labels).toEqual(["code (required)", "count", "agree", "size", "extra (JSON)"]);
    const code = labelled(container, "code");
    expect(find(container, `[id="${code.getAttribute("aria-describedby")}"]`).textContent).toBe(
      "Six digits",
    );
  });

  it("puts what is typed, ticked and chosen in the draft at the field's path", async () => {
    const { container } = await render(<Form />);
    await type(labelled(container, "code"), "123");
    await click(labelled(container, "agree"));
    await type(labelled<HTMLSelectElement>(container, "size"), '"M"');
    expect(JSON.parse(find(container, "output").textContent ?? "")).toEqual({
      "input.code": "123",
      "input.agree": true,
      "input.size": '"M"',
    });
  });

  it("shows an issue at its field, which is marked invalid and described by it", async () => {
    const { container } = await render(<Form issues={{ "input.code": "too short" }} />);
    const code = labelled(container, "code");
    expect(code.getAttribute("aria-invalid")).toBe("true");
    const described = code.getAttribute("aria-describedby")?.split(" ") ?? [];
    expect(described.map((id) => find(container, `[id="${id}"]`).textContent)).toEqual([
      "Six digits",
      "too short",
    ]);
    expect(labelled(container, "count").getAttribute("aria-invalid")).toBeNull();
  });
});
