import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { RunClient } from "./support/runs.js";

// Skills shipped over the API (PUT /v1/skill/{id}, POST /v1/skill/validate) are checked exactly
// as an import checks a file, stored all or nothing, and run as imported skills do.

const GREETER = `id: skill_greeter
name: Greeter
inputs:
  - { json_key: who, data_type: string }
steps:
  - set: { greeting: "Hello, {{ inputs.who }}" }
`;

let server: TestServer;
let alice: RunClient;

beforeAll(async () => {
  server = await startTestServer({ worker: { concurrency: 1 } });
  alice = new RunClient(server.origin, await server.keyFor("alice"));
}, 60_000);

afterAll(() => server?.close());

function putYaml(id: string, yaml: string, key = alice.key) {
  return call(server.origin, "PUT", `/v1/skill/${id}`, {
    key,
    body: yaml,
    headers: { "content-type": "application/yaml" },
  });
}

function issuesOf(reply: { body: unknown }): { loc: unknown[]; msg: string; type: string }[] {
  return (reply.body as { detail: { loc: unknown[]; msg: string; type: string }[] }).detail;
}

describe("PUT /v1/skill/{id}", () => {
  it("creates a skill from YAML that then runs, and replaces it with a new version", async () => {
    const created = await putYaml("skill_greeter", GREETER);
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      id: "skill_greeter",
      name: "Greeter",
      owner: "alice",
      inputs: [{ json_key: "who", data_type: "string", required: true }],
    });
    const version = (created.body as { x_version: string }).x_version;
    expect(version).toMatch(/^[0-9a-f]{64}$/);

    const run = await alice.start("skill_greeter", { who: "Ada" });
    expect((await alice.ended(run.id)).data).toEqual({ greeting: "Hello, Ada" });

    const same = await putYaml("skill_greeter", GREETER);
    expect([same.status, (same.body as { x_version: string }).x_version]).toEqual([200, version]);
    expect((same.body as { last_modified_at: string }).last_modified_at).toBe(
      (created.body as { last_modified_at: string }).last_modified_at,
    );

    const changed = await putYaml("skill_greeter", GREETER.replace("Hello", "Hi"));
    expect(changed.status).toBe(200);
    expect((changed.body as { x_version: string }).x_version).not.toBe(version);
    const read = await call(server.origin, "GET", "/v1/skill/skill_greeter", { key: alice.key });
    expect(read.body).toMatchObject({
      x_version: (changed.body as { x_version: string }).x_version,
      x_definition: { id: "skill_greeter", steps: [{ set: { greeting: "Hi, {{ inputs.who }}" } }] },
    });
  }, 30_000);

  it("places a JSON body's problems at their line and column in the text sent", async () => {
    const sent =
      '{"id":"skill_j","name":"J","inputs":[{"json_key":"a","data_type":"number"}],"steps":[{"log":"{{ inputs.b }}"}]}';
    const reply = await call(server.origin, "PUT", "/v1/skill/skill_j", {
      key: alice.key,
      body: sent,
      headers: { "content-type": "application/json" },
    });
    expect(issuesOf(reply)).toEqual([
      {
        loc: ["body", "steps", 0, "log"],
        msg: `Value error, line 1, column ${sent.indexOf("inputs.b") + "inputs.".length + 1}: unknown input "b" (the skill's inputs: a)`,
        type: "value_error",
      },
    ]);
  });

  it("takes a JSON object as well", async () => {
    const reply = await call(server.origin, "PUT", "/v1/skill/skill_json", {
      key: alice.key,
      json: { id: "skill_json", name: "From JSON", steps: [{ log: "hi" }] },
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body).toMatchObject({ id: "skill_json", name: "From JSON" });
  });

  it("refuses every problem at once, at its line and path, and stores nothing", async () => {
    const reply = await putYaml(
      "skill_broken",
      `id: skill_broken
name: Broken
inputs:
  - { json_key: username, data_type: string }
steps:
  - log: "{{ inputs.usernme }}"
  - call: { skill: skill_nowhere }
  - repeat: { steps: [{ log: x }] }
`,
    );
    expect(reply.status).toBe(422);
    expect(issuesOf(reply)).toEqual([
      {
        loc: ["body", "steps", 0, "log"],
        msg: 'Value error, line 6, column 21: unknown input "usernme" (did you mean "username"?)',
        type: "value_error",
      },
      {
        loc: ["body", "steps", 2, "repeat"],
        msg: expect.stringMatching(/^Value error, line 8, column 13: missing required key "max"/),
        type: "value_error",
      },
    ]);
    const missing = await call(server.origin, "GET", "/v1/skill/skill_broken", { key: alice.key });
    expect(missing.status).toBe(404);

    const unknownCall = await putYaml(
      "skill_caller",
      "id: skill_caller\nname: Caller\nsteps:\n  - call: { skill: skill_nowhere }\n",
    );
    expect(issuesOf(unknownCall)).toEqual([
      {
        loc: ["body", "steps", 0, "call", "skill"],
        msg: expect.stringMatching(/^Value error, line 4, column \d+: .*skill_nowhere/),
        type: "value_error",
      },
    ]);
  });

  it("refuses an id other than the address's; list and validate name other operations", async () => {
    const other = await putYaml("skill_other", GREETER);
    expect(issuesOf(other)).toEqual([
      {
        loc: ["body", "id"],
        msg: 'Value error, line 1, column 5: the definition\'s id "skill_greeter" is not the id in the address, "skill_other"',
        type: "value_error",
      },
    ]);
    const list = await putYaml("list", "id: list\nname: L\nsteps:\n  - log: x\n");
    expect([list.status, list.body]).toEqual([404, { detail: "Not Found" }]);
  });

  it("answers hostile YAML with a 422, never a crash", async () => {
    const laughs = [
      "a: &a [x, x, x, x, x, x, x, x, x, x]",
      ...Array.from({ length: 8 }, (_, i) => {
        const name = String.fromCharCode(98 + i);
        const prev = String.fromCharCode(97 + i);
        return `${name}: &${name} [*${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}]`;
      }),
      "id: skill_laughs",
      "name: L",
      "steps: [{ log: x }]",
    ].join("\n");
    const bombed = await putYaml("skill_laughs", laughs);
    expect(bombed.status).toBe(422);

    const deep = `id: skill_deep\nname: D\nsteps:\n  - set: { a: ${"[".repeat(5000)}${"]".repeat(5000)} }\n`;
    const nested = await putYaml("skill_deep", deep);
    expect([422, 201]).toContain(nested.status);
    const deepJson = await call(server.origin, "POST", "/v1/skill/validate", {
      key: alice.key,
      body: `{"id":"skill_x","name":"X","steps":[{"set":{"a":${"[".repeat(6000)}${"]".repeat(6000)}}}]}`,
      headers: { "content-type": "application/json" },
    });
    expect([deepJson.status, deepJson.body]).toEqual([
      422,
      {
        detail: [
          {
            loc: ["body"],
            msg: "Value error, the definition nests deeper than 200 levels",
            type: "value_error",
          },
        ],
      },
    ]);
    const broken = await putYaml("skill_syntax", "id: [unclosed\n");
    expect(broken.status).toBe(422);
    expect(issuesOf(broken)[0]?.loc).toEqual(["body"]);
    // The server is still there.
    expect((await call(server.origin, "GET", "/healthz")).status).toBe(200);
  });

  it("answers an empty body, a huge list, text the database cannot store and a flood of problems precisely", async () => {
    const empty = await putYaml("skill_empty", "");
    expect(empty.status).toBe(422);
    const noYaml = await call(server.origin, "PUT", "/v1/skill/skill_empty", {
      key: alice.key,
      headers: { "content-type": "application/yaml" },
    });
    expect(issuesOf(noYaml)).toEqual([
      {
        loc: ["body"],
        msg: "Value error, line 1, column 1: expected a skill definition (a map with id, name and steps), got nothing",
        type: "value_error",
      },
    ]);
    const noJson = await call(server.origin, "POST", "/v1/skill/validate", {
      key: alice.key,
      headers: { "content-type": "application/json" },
    });
    expect(noJson.status).toBe(422);
    expect(issuesOf(noJson)[0]).toMatchObject({ loc: ["body"] });

    const huge = await call(server.origin, "POST", "/v1/skill/validate", {
      key: alice.key,
      body: `{"id":"skill_huge","name":"H","steps":[{"set":{"a":[${"0,".repeat(130_000)}0]}}]}`,
      headers: { "content-type": "application/json" },
    });
    expect(huge.status, huge.text.slice(0, 200)).toBe(200);

    const nul = await putYaml("skill_nul", 'id: skill_nul\nname: "Ca\\0f"\nsteps:\n  - log: x\n');
    expect(issuesOf(nul)).toEqual([
      {
        loc: ["body", "name"],
        msg: "Value error, line 2, column 7: this text holds a character the database cannot store (NUL, or half of a surrogate pair)",
        type: "value_error",
      },
    ]);

    // In a comment YAML lets it pass; the text is stored as sent, so it is refused all the same.
    const commented = await putYaml(
      "skill_nul",
      "id: skill_nul\nname: N # a\u0000b\nsteps:\n  - log: x\n",
    );
    expect(issuesOf(commented)).toEqual([
      {
        loc: ["body"],
        msg: "Value error, line 2, column 12: this text holds a character the database cannot store (NUL, or half of a surrogate pair)",
        type: "value_error",
      },
    ]);
    expect(
      (await call(server.origin, "GET", "/v1/skill/skill_nul", { key: alice.key })).status,
    ).toBe(404);

    const typos = Array.from({ length: 150 }, (_, i) => `  - log: "{{ inputs.x${i} }}"`);
    const flood = await putYaml(
      "skill_flood",
      `id: skill_flood\nname: F\nsteps:\n${typos.join("\n")}\n`,
    );
    const listed = issuesOf(flood);
    expect(listed).toHaveLength(101);
    expect(listed.at(-1)).toEqual({
      loc: ["body"],
      msg: "Value error, and 50 more problems; fix these first",
      type: "value_error",
    });
  });

  it("takes back the definition GET shows, unchanged", async () => {
    await putYaml("skill_round", GREETER.replace("skill_greeter", "skill_round"));
    const read = await call(server.origin, "GET", "/v1/skill/skill_round", { key: alice.key });
    const { x_definition, x_version } = read.body as { x_definition: unknown; x_version: string };
    const again = await call(server.origin, "PUT", "/v1/skill/skill_round", {
      key: alice.key,
      json: x_definition,
    });
    expect([again.status, (again.body as { x_version: string }).x_version]).toEqual([
      200,
      x_version,
    ]);
  });

  it("is the caller's own: another owner's skill of the same id is untouched", async () => {
    const bob = await server.keyFor("bob");
    const reply = await putYaml("skill_greeter", GREETER.replace("Greeter", "Bob's"), bob);
    expect(reply.status).toBe(201);
    const alices = await call(server.origin, "GET", "/v1/skill/skill_greeter", { key: alice.key });
    expect(alices.body).toMatchObject({ name: "Greeter" });
  });
});

describe("the definition's text", () => {
  const COMMENTED = `# Greets someone.
id: skill_text
name: Texted   # shown in lists
inputs:
  - {json_key: who, data_type: string}   # flow style, kept as written
steps:
  # the one step
  - set: { greeting: 'Hello, {{ inputs.who }}' }
`;
  const yamlOf = (id: string, key = alice.key) =>
    call(server.origin, "GET", `/v1/skill/${id}/yaml`, { key });

  it("is served back as sent by GET /yaml, comments included; the JSON skill stays as it was", async () => {
    expect((await putYaml("skill_text", COMMENTED)).status).toBe(201);
    const yaml = await yamlOf("skill_text");
    expect(yaml.status).toBe(200);
    expect(yaml.headers.get("content-type")).toBe("application/yaml; charset=utf-8");
    expect(yaml.text).toBe(COMMENTED);
    const json = await call(server.origin, "GET", "/v1/skill/skill_text", { key: alice.key });
    expect(json.headers.get("content-type")).toMatch(/^application\/json/);
    expect(Object.keys(json.body as object).sort()).toEqual(
      [
        "created_at",
        "description",
        "id",
        "inputs",
        "last_modified_at",
        "name",
        "owner",
        "x_definition",
        "x_version",
      ].sort(),
    );
  });

  it("follows a PUT that only changes comments, which keeps the version and last change", async () => {
    const first = await putYaml("skill_text2", COMMENTED.replace("skill_text", "skill_text2"));
    const edited = COMMENTED.replace("skill_text", "skill_text2").replace(
      "# the one step",
      "# greets",
    );
    const again = await putYaml("skill_text2", edited);
    expect(again.status).toBe(200);
    const pick = (reply: { body: unknown }) => {
      const { x_version, last_modified_at } = reply.body as Record<string, unknown>;
      return { x_version, last_modified_at };
    };
    expect(pick(again)).toEqual(pick(first));
    expect((await yamlOf("skill_text2")).text).toBe(edited);
    // A refused PUT leaves the text as it was.
    const refused = await putYaml("skill_text2", `${edited}  - clik: a\n`);
    expect(refused.status).toBe(422);
    expect((await yamlOf("skill_text2")).text).toBe(edited);
  });

  it("is the stored definition written out for a skill sent as JSON", async () => {
    const definition = {
      id: "skill_as_json",
      name: "Sent as JSON",
      steps: [{ set: { a: 1 } }],
    };
    expect(
      (
        await call(server.origin, "PUT", "/v1/skill/skill_as_json", {
          key: alice.key,
          json: definition,
        })
      ).status,
    ).toBe(201);
    const yaml = await yamlOf("skill_as_json");
    expect(yaml.status).toBe(200);
    expect(yaml.text).toBe(
      "id: skill_as_json\nname: Sent as JSON\ninputs: []\nsteps:\n  - set:\n      a: 1\n",
    );
  });

  it("is another owner's business: 404 for an unknown or foreign skill, as JSON", async () => {
    const bob = await server.keyFor("bob");
    for (const reply of [await yamlOf("skill_text", bob), await yamlOf("skill_nowhere")]) {
      expect([reply.status, reply.body]).toEqual([404, { detail: "Skill not found" }]);
    }
  });
});

describe("a run records the version it executes", () => {
  it("as x_skill_version, null while queued, the version of the definition it ran", async () => {
    await putYaml("skill_versioned", GREETER.replace("skill_greeter", "skill_versioned"));
    const first = await alice.start("skill_versioned", { who: "A" });
    const ran = await alice.ended(first.id);
    const skill = await call(server.origin, "GET", "/v1/skill/skill_versioned", { key: alice.key });
    expect(ran.x_skill_version).toBe((skill.body as { x_version: string }).x_version);

    const changed = await putYaml(
      "skill_versioned",
      GREETER.replace("skill_greeter", "skill_versioned").replace("Hello", "Hey"),
    );
    const second = await alice.ended((await alice.start("skill_versioned", { who: "B" })).id);
    expect(second.data).toEqual({ greeting: "Hey, B" });
    expect(second.x_skill_version).toBe((changed.body as { x_version: string }).x_version);
    expect(second.x_skill_version).not.toBe(ran.x_skill_version);
    expect((await alice.get(first.id)).x_skill_version).toBe(ran.x_skill_version);
  }, 30_000);
});

describe("DELETE /v1/skill/{id}", () => {
  it("removes the skill for its owner, keeps its runs, and frees its id", async () => {
    await putYaml("skill_doomed", GREETER.replace("skill_greeter", "skill_doomed"));
    const run = await alice.ended((await alice.start("skill_doomed", { who: "Z" })).id);

    const deleted = await call(server.origin, "DELETE", "/v1/skill/skill_doomed", {
      key: alice.key,
    });
    expect([deleted.status, deleted.text]).toEqual([204, ""]);
    expect(
      (await call(server.origin, "GET", "/v1/skill/skill_doomed", { key: alice.key })).status,
    ).toBe(404);
    const list = await call(server.origin, "GET", "/v1/skill/list", { key: alice.key });
    expect((list.body as { id: string }[]).map((s) => s.id)).not.toContain("skill_doomed");
    const start = await call(server.origin, "POST", "/v1/run/", {
      key: alice.key,
      json: { skill_id: "skill_doomed", inputs: { who: "Y" } },
    });
    expect([start.status, start.body]).toEqual([404, { detail: "Skill not found" }]);
    // Its run keeps its history.
    expect((await alice.get(run.id)).data).toEqual({ greeting: "Hello, Z" });
    const again = await call(server.origin, "DELETE", "/v1/skill/skill_doomed", { key: alice.key });
    expect(again.status).toBe(404);

    const recreated = await putYaml(
      "skill_doomed",
      GREETER.replace("skill_greeter", "skill_doomed"),
    );
    expect(recreated.status).toBe(201);
  }, 30_000);

  it("refuses while another skill calls it, naming the callers", async () => {
    await putYaml("skill_callee", "id: skill_callee\nname: Callee\nsteps:\n  - log: x\n");
    await putYaml(
      "skill_caller_a",
      "id: skill_caller_a\nname: A\nsteps:\n  - call: { skill: skill_callee }\n",
    );
    const refused = await call(server.origin, "DELETE", "/v1/skill/skill_callee", {
      key: alice.key,
    });
    expect([refused.status, refused.body]).toEqual([
      409,
      { detail: "Skill is called by skill_caller_a: change or delete those first" },
    ]);
    expect(
      (await call(server.origin, "DELETE", "/v1/skill/skill_caller_a", { key: alice.key })).status,
    ).toBe(204);
    expect(
      (await call(server.origin, "DELETE", "/v1/skill/skill_callee", { key: alice.key })).status,
    ).toBe(204);
  });
});

describe("POST /v1/skill/validate", () => {
  it("checks as a PUT would and stores nothing", async () => {
    const valid = await call(server.origin, "POST", "/v1/skill/validate", {
      key: alice.key,
      body: GREETER.replace("skill_greeter", "skill_checked"),
      headers: { "content-type": "text/yaml" },
    });
    expect(valid.status, valid.text).toBe(200);
    expect(valid.body).toEqual({
      id: "skill_checked",
      name: "Greeter",
      x_version: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const stored = await call(server.origin, "GET", "/v1/skill/skill_checked", { key: alice.key });
    expect(stored.status).toBe(404);

    const invalid = await call(server.origin, "POST", "/v1/skill/validate", {
      key: alice.key,
      json: { id: "skill_checked", name: "X", steps: [{ wait: "2 days" }] },
    });
    expect(invalid.status).toBe(422);
    expect(issuesOf(invalid)[0]?.loc).toEqual(["body", "steps", 0, "wait"]);
  });
});
