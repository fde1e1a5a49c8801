import { describe, expect, it } from "vitest";
import { conditionProblem, templateProblem } from "./check.js";
import { type ExpressionScope, evaluateCondition, renderText, resolveValue } from "./evaluate.js";

const scope: ExpressionScope = {
  inputs: { a: 2, b: 3, name: "Ada", max_price: 100 },
  data: {
    price: "42.50",
    response: { status: 200, body: { title: "Hi", tags: ["x", "y"] } },
    items: [{ n: 1 }, { n: 2 }],
    one: [{ n: 5 }],
    empty: "",
  },
  vars: { rows: [{ n: 1 }] },
  steps: { fetch: { status: 200 }, skipped: null },
  run: { id: "run_1", skill_id: "skill_x" },
};

const resolve = (value: unknown) => resolveValue(value, scope);

describe("a string that is one {{ expr }}", () => {
  it("keeps the expression's type", async () => {
    expect(await resolve("{{ inputs.a + inputs.b }}")).toBe(5);
    expect(await resolve("{{ $number(data.price) < inputs.max_price }}")).toBe(true);
    expect(await resolve("{{ data.response.body }}")).toEqual({ title: "Hi", tags: ["x", "y"] });
    expect(await resolve("{{ data.response.body.tags }}")).toEqual(["x", "y"]);
    expect(await resolve("{{ null }}")).toBeNull();
  });

  it("allows whitespace around it", async () => {
    expect(await resolve("  {{ inputs.a }}\n")).toBe(2);
  });

  it("becomes null when the expression gives nothing", async () => {
    expect(await resolve("{{ data.missing }}")).toBeNull();
  });

  it("sees steps and run", async () => {
    expect(await resolve("{{ steps.fetch.status }}")).toBe(200);
    expect(await resolve("{{ run.id & '/' & run.skill_id }}")).toBe("run_1/skill_x");
  });
});

describe("text with templates", () => {
  it("makes a string, with maps and lists as JSON and nothing as empty text", async () => {
    expect(await resolve("Hello, {{ inputs.name }}!")).toBe("Hello, Ada!");
    expect(await resolve("{{ inputs.a }} + {{ inputs.b }} = {{ inputs.a + inputs.b }}")).toBe(
      "2 + 3 = 5",
    );
    expect(await resolve("body: {{ data.response.body }}")).toBe(
      'body: {"title":"Hi","tags":["x","y"]}',
    );
    expect(await resolve("[{{ data.missing }}]")).toBe("[]");
    expect(await resolve("{{ true }}/{{ null }}")).toBe("true/null");
  });

  it("shows numbers as JSONata's $string does", async () => {
    expect(await resolve("{{ 0.1 + 0.2 }}")).toBe(0.30000000000000004);
    expect(await resolve("sum {{ 0.1 + 0.2 }}")).toBe("sum 0.3");
  });

  it("is rendered as text even when it is one expression, where text is wanted", async () => {
    expect(await renderText("{{ inputs.a }}", scope)).toBe("2");
    expect(await renderText("{{ data.missing }}", scope)).toBe("");
    expect(await renderText("no templates", scope)).toBe("no templates");
  });
});

describe("resolveValue", () => {
  it("resolves maps and lists member by member and leaves other values alone", async () => {
    const value = {
      json: { total: "{{ inputs.a + inputs.b }}", list: ["{{ inputs.name }}", 7, null] },
      headers: { Authorization: "Bearer {{ inputs.name }}" },
      flag: false,
    };
    expect(await resolve(value)).toEqual({
      json: { total: 5, list: ["Ada", 7, null] },
      headers: { Authorization: "Bearer Ada" },
      flag: false,
    });
  });

  it("gives plain JSON: sequences become plain arrays, constructed objects plain objects", async () => {
    const list = await resolve("{{ data.items.n }}");
    expect(list).toEqual([1, 2]);
    expect(Object.hasOwn(list as object, "sequence")).toBe(false);
    expect(await resolve("{{ data.one.n }}")).toBe(5);
    const made = await resolve('{{ {"a": {"b": 1}} }}');
    expect(made).toEqual({ a: { b: 1 } });
    expect(Object.getPrototypeOf(made)).toBe(Object.prototype);
  });

  it("names the expression when evaluation fails", async () => {
    await expect(resolve("x {{ inputs.a +  }}")).rejects.toThrow(
      "cannot evaluate {{ inputs.a +  }}: Unexpected end of expression",
    );
    await expect(resolve("{{ inputs.name + 1 }}")).rejects.toThrow(
      'cannot evaluate {{ inputs.name + 1 }}: The left side of the "+" operator must evaluate to a number',
    );
  });

  it("rejects results that are not JSON values", async () => {
    await expect(resolve("{{ $uppercase }}")).rejects.toThrow(
      "cannot evaluate {{ $uppercase }}: gives a function, not a value",
    );
    await expect(resolve("{{ function($x) { $x } }}")).rejects.toThrow("gives a function");
    await expect(resolve("{{ 1 / 0 }}")).rejects.toThrow(
      "cannot evaluate {{ 1 / 0 }}: gives Infinity, which is not a JSON number",
    );
  });

  it("stops runaway recursion, and a loop after a second", async () => {
    await expect(resolve("{{ ($f := function($n) { $f($n + 1) + 1 }; $f(0)) }}")).rejects.toThrow(
      /^cannot evaluate .*: Stack overflow/,
    );
    const started = Date.now();
    await expect(resolve("{{ ($f := function($n) { $f($n + 1) }; $f(0)) }}")).rejects.toThrow(
      /^cannot evaluate .*: Evaluation timeout after 1000 milliseconds/,
    );
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe("evaluateCondition", () => {
  it("takes a bare expression or one template", async () => {
    expect(await evaluateCondition("inputs.a > 1", scope)).toBe(true);
    expect(await evaluateCondition("{{ inputs.a > 5 }}", scope)).toBe(false);
  });

  it("is false for what JSONata's $boolean calls false", async () => {
    for (const falsy of ["0", "''", "[]", "{}", "null", "data.missing", "data.empty", "false"]) {
      expect(await evaluateCondition(falsy, scope), falsy).toBe(false);
    }
    for (const truthy of ["1", "'no'", "[0, 1]", "{'a': 1}", "data.items", "steps.fetch"]) {
      expect(await evaluateCondition(truthy, scope), truthy).toBe(true);
    }
  });

  it("rejects text around a template, which could only ever be text", async () => {
    await expect(evaluateCondition("yes {{ inputs.a }}", scope)).rejects.toThrow(
      '"if" takes one expression, bare or in one {{ }}, got "yes {{ inputs.a }}"',
    );
  });
});

describe("checking templates before a run", () => {
  it("passes good ones and plain text", () => {
    expect(templateProblem("Hello, {{ inputs.name }}")).toBeUndefined();
    expect(templateProblem("plain")).toBeUndefined();
    expect(conditionProblem("data.n > 1")).toBeUndefined();
  });

  it("names a template JSONata cannot parse", () => {
    expect(templateProblem("a {{ inputs.a + }}")).toBe(
      "invalid expression {{ inputs.a + }}: Unexpected end of expression",
    );
    expect(templateProblem("{{ inputs.a")).toBe('unclosed "{{" in "{{ inputs.a"');
    expect(conditionProblem("data.n >")).toBe(
      "invalid expression {{ data.n > }}: Unexpected end of expression",
    );
  });
});
