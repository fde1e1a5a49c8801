import { describe, expect, it } from "vitest";
import { parseTemplate, wholeExpression } from "./template.js";

describe("parseTemplate", () => {
  it("splits text and expressions, keeping each expression as written", () => {
    expect(parseTemplate("Hello, {{ inputs.name }}!")).toEqual([
      { text: "Hello, " },
      { expression: "inputs.name", source: "{{ inputs.name }}", start: 10 },
      { text: "!" },
    ]);
  });

  it("reads past braces and quoted braces inside an expression", () => {
    const text = `{{ {"a": {"b": "}}"}} }} and {{ 'x}}' }}`;
    expect(parseTemplate(text)).toEqual([
      { expression: `{"a": {"b": "}}"}}`, source: `{{ {"a": {"b": "}}"}} }}`, start: 3 },
      { text: " and " },
      { expression: "'x}}'", source: "{{ 'x}}' }}", start: 32 },
    ]);
  });

  it("leaves text without templates, and a lone }}, as text", () => {
    expect(parseTemplate("a }} b")).toEqual([{ text: "a }} b" }]);
  });

  it("rejects an unclosed or an empty template", () => {
    expect(() => parseTemplate("Hi {{ inputs.name")).toThrow(
      'unclosed "{{" in "Hi {{ inputs.name"',
    );
    expect(() => parseTemplate("Hi {{  }}")).toThrow("empty expression {{  }}");
  });
});

describe("wholeExpression", () => {
  it("finds the one expression of a template that is nothing else, whitespace aside", () => {
    expect(wholeExpression(parseTemplate("  {{ data.n }} "))).toEqual({
      expression: "data.n",
      source: "{{ data.n }}",
      start: 5,
    });
  });

  it("finds none when there is text or a second expression", () => {
    expect(wholeExpression(parseTemplate("n={{ data.n }}"))).toBeUndefined();
    expect(wholeExpression(parseTemplate("{{ a }}{{ b }}"))).toBeUndefined();
    expect(wholeExpression(parseTemplate("plain"))).toBeUndefined();
  });
});
