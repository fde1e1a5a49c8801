import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";

// A skill's browser profile over HTTP: what an import refuses of its `profile`, the name a run is
// queued with, and the 422 for inputs that render no profile name. (What the claim decides is in
// src/db/repositories/profile-queue.db.test.ts, on both databases; a run in a browser in
// browser-profiles.browser.test.ts.)

const ACME = `
id: skill_acme
name: Acme
inputs:
  - { json_key: user, data_type: string }
  - { json_key: password, data_type: string, secret: true }
profile: { name: "acme-{{ inputs.user }}", save: on_success }
steps:
  - log: "{{ inputs.user }}"
`;

let server: TestServer;
let alice: string;

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.keyFor("alice");
  await server.importSkillYaml("alice", ACME);
});
afterAll(async () => {
  await server?.close();
});

function start(user: unknown) {
  return call(server.origin, "POST", "/v1/run/", {
    key: alice,
    json: { skill_id: "skill_acme", inputs: { user, password: "pw" } },
  });
}

function putSkill(yaml: string) {
  return call(server.origin, "PUT", "/v1/skill/skill_odd", {
    key: alice,
    body: yaml,
    headers: { "content-type": "application/yaml" },
  });
}

describe("a skill's browser profile over the API", () => {
  it("queues a run with its profile's name rendered from the inputs, and whether it saves", async () => {
    const reply = await start("ann@example.com");
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ state: null, waiting_for: "slot" });
    const id = (reply.body as { id: string }).id;
    const row = await server.db.prisma.run.findUnique({ where: { id } });
    expect(row).toMatchObject({ profile: "acme-ann@example.com", profileSave: "on_success" });
  });

  it("refuses inputs whose profile name has odd characters or is too long, and queues nothing", async () => {
    const before = await server.db.prisma.run.count({ where: { owner: "alice" } });
    for (const user of ["a/b", "ann smith", "x".repeat(124), "../etc", "é"]) {
      const reply = await start(user);
      expect(reply.status, user).toBe(422);
      expect(reply.body).toMatchObject({
        detail: [{ loc: ["body", "inputs"], type: "value_error" }],
      });
      expect((reply.body as { detail: { msg: string }[] }).detail[0]?.msg).toMatch(
        /^Value error, the skill's profile name renders to .* for these inputs; a profile's name is letters, digits and \. _ @ \+ -/,
      );
    }
    expect(await server.db.prisma.run.count({ where: { owner: "alice" } })).toBe(before);
  });

  it("refuses at import a name reading a secret input, a function, or of odd characters", async () => {
    const cases: [string, RegExp][] = [
      ['profile: { name: "acme-{{ inputs.password }}" }', /reads the secret input password/],
      ['profile: { name: "acme-{{ $lowercase(inputs.user) }}" }', /may only read inputs/],
      ['profile: { name: "acme/{{ inputs.user }}" }', /holds "\/"/],
      [
        "profile: { name: acme, save: sometimes }",
        /"sometimes" is not one of: never, on_success, always/,
      ],
    ];
    for (const [line, message] of cases) {
      const yaml = ACME.replace(
        'profile: { name: "acme-{{ inputs.user }}", save: on_success }',
        line,
      ).replace("skill_acme", "skill_odd");
      const reply = await putSkill(yaml);
      expect(reply.status, line).toBe(422);
      const detail = (reply.body as { detail: { loc: unknown[]; msg: string }[] }).detail;
      expect(detail[0]?.loc.slice(0, 2), line).toEqual(["body", "profile"]);
      expect(detail.map((issue) => issue.msg).join("\n"), line).toMatch(message);
    }
  });
});
