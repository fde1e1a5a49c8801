import type { SkillDefinition } from "@skillrun/engine";
import { describe, expect, it } from "vitest";
import { followServerAddress } from "./prepare-demo.js";

function skillWithDefaults(...defaults: unknown[]): SkillDefinition {
  return {
    id: "skill_x",
    name: "X",
    inputs: defaults.map((value, i) => ({
      id: `input_k${i}`,
      json_key: `k${i}`,
      data_type: "string",
      required: false,
      default: value,
    })),
    timeoutMs: 60_000,
    steps: [{ log: "x" }],
  } as SkillDefinition;
}

function defaultsOf(definition: SkillDefinition): unknown[] {
  return definition.inputs.map((input) => input.default);
}

describe("the demo's skills follow the server's address", () => {
  it("points defaults that name the default server address at the server's own", () => {
    const skill = skillWithDefaults(
      "http://127.0.0.1:8080/demo/",
      "http://127.0.0.1:8080",
      "http://127.0.0.1:8080?x=1",
    );
    expect(defaultsOf(followServerAddress(skill, "http://127.0.0.1:9000"))).toEqual([
      "http://127.0.0.1:9000/demo/",
      "http://127.0.0.1:9000",
      "http://127.0.0.1:9000?x=1",
    ]);
  });

  it("leaves other defaults as they are", () => {
    const skill = skillWithDefaults("http://127.0.0.1:80800/demo/", "https://example.com/", 8080);
    expect(defaultsOf(followServerAddress(skill, "http://127.0.0.1:9000"))).toEqual([
      "http://127.0.0.1:80800/demo/",
      "https://example.com/",
      8080,
    ]);
  });

  it("keeps a PUBLIC_URL's path and drops its trailing slash", () => {
    const skill = skillWithDefaults("http://127.0.0.1:8080/demo/");
    expect(defaultsOf(followServerAddress(skill, "https://skillrun.example/run/"))).toEqual([
      "https://skillrun.example/run/demo/",
    ]);
  });

  it("reaches a server listening on every interface at 127.0.0.1", () => {
    const skill = skillWithDefaults("http://127.0.0.1:8080/demo/");
    expect(defaultsOf(followServerAddress(skill, "http://0.0.0.0:9000"))).toEqual([
      "http://127.0.0.1:9000/demo/",
    ]);
  });
});
