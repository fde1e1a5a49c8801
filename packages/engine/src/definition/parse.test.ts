import { describe, expect, it } from "vitest";
import { stepKind } from "../steps/registry.js";
import { parseSkillDefinition } from "./parse.js";

// Much of the format (docs/skills.md): inputs with defaults, templates, browser and http steps.
const PRICE_CHECK = `id: skill_price_check
name: Price check
description: Reads the price of a product page
inputs:
  - { json_key: url, data_type: string }
  - { json_key: query, data_type: string }
  - { json_key: name, data_type: string, required: false, default: there }
  - { json_key: max_price, data_type: number, required: false, default: 100 }
timeout: 2m
steps:
  - goto: "{{ inputs.url }}"
  - fill: { selector: "#search", value: "{{ inputs.query }}" }
  - click: { selector: "button[type=submit]" }
  - wait_for: { selector: ".price" }
  - extract: { selector: ".price", save_as: price }
  - wait: 2s
  - id: notify
    http: { method: POST, url: "https://hooks.example/price", json: { price: "{{ data.price }}" } }
  - set: { cheap: "{{ $number(data.price) < inputs.max_price }}", greeting: "Hello, {{ inputs.name }}!" }
`;

describe("parseSkillDefinition", () => {
  it("parses a full example and fills in input ids, required and timeoutMs", () => {
    expect(parseSkillDefinition(PRICE_CHECK, "price-check.yaml")).toEqual({
      id: "skill_price_check",
      name: "Price check",
      description: "Reads the price of a product page",
      inputs: [
        { id: "input_url", json_key: "url", data_type: "string", required: true },
        { id: "input_query", json_key: "query", data_type: "string", required: true },
        {
          id: "input_name",
          json_key: "name",
          data_type: "string",
          required: false,
          default: "there",
        },
        {
          id: "input_max_price",
          json_key: "max_price",
          data_type: "number",
          required: false,
          default: 100,
        },
      ],
      timeout: "2m",
      timeoutMs: 120_000,
      steps: [
        { goto: "{{ inputs.url }}" },
        { fill: { selector: "#search", value: "{{ inputs.query }}" } },
        { click: { selector: "button[type=submit]" } },
        { wait_for: { selector: ".price" } },
        { extract: { selector: ".price", save_as: "price" } },
        { wait: "2s" },
        {
          id: "notify",
          http: {
            method: "POST",
            url: "https://hooks.example/price",
            json: { price: "{{ data.price }}" },
          },
        },
        {
          set: {
            cheap: "{{ $number(data.price) < inputs.max_price }}",
            greeting: "Hello, {{ inputs.name }}!",
          },
        },
      ],
    });
  });

  it("gives a definition without inputs or timeout no inputs and the ten-minute limit", () => {
    const skill = parseSkillDefinition("id: s\nname: S\nsteps:\n  - wait: 1s\n", "s.yaml");
    expect(skill).toEqual({
      id: "s",
      name: "S",
      inputs: [],
      timeoutMs: 600_000,
      steps: [{ wait: "1s" }],
    });
    expect(skill).not.toHaveProperty("timeout");
  });

  it("keeps an input's own id and an explicit required", () => {
    const text = `id: s
name: S
inputs:
  - { id: the_file, json_key: doc, data_type: file, required: true, default: ./a.pdf }
steps:
  - screenshot:
  - log: { message: done, level: debug }
`;
    expect(parseSkillDefinition(text, "s.yaml").inputs).toEqual([
      { id: "the_file", json_key: "doc", data_type: "file", required: true, default: "./a.pdf" },
    ]);
  });

  it("names each step's action with stepKind", () => {
    const { steps } = parseSkillDefinition(PRICE_CHECK, "price-check.yaml");
    expect(steps.map(stepKind)).toEqual([
      "goto",
      "fill",
      "click",
      "wait_for",
      "extract",
      "wait",
      "http",
      "set",
    ]);
  });
});
