import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SkillCheckTask } from "../src/skills/check-thread.js";
import { SkillChecker } from "../src/skills/skill-checker.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";

// Checking a skill definition sent to the API costs what its sender makes it cost: it runs on
// threads of its own within SKILL_CHECK_BUDGET_MS, so no definition holds the thread that serves
// every other request, and names are short enough that comparing them stays cheap.

/** A definition of `count` inputs and as many references to inputs that do not exist. */
function unknownReferences(count: number, length: number): string {
  const name = (prefix: string, i: number) => `${prefix}${i}`.padEnd(length, "x");
  const inputs = Array.from(
    { length: count },
    (_, i) => `  - { json_key: ${name("k", i)}, data_type: string }`,
  );
  const steps = Array.from({ length: count }, (_, i) => `  - log: "{{ inputs.${name("r", i)} }}"`);
  return `id: heavy\nname: Heavy\ninputs:\n${inputs.join("\n")}\nsteps:\n${steps.join("\n")}\n`;
}

/**
 * A definition whose check needs more memory than a check thread has (well over 256 MB: a
 * sequence of 330,000 numbers, 645 KB of YAML).
 */
function memoryHungry(): string {
  const numbers = Array.from({ length: 330_000 }, () => "1").join(",");
  return `id: heavy\nname: Heavy\nsteps:\n  - set: { a: [${numbers}] }\n`;
}

function put(server: TestServer, key: string, yaml: string, id = "heavy") {
  return call(server.origin, "PUT", `/v1/skill/${id}`, {
    key,
    body: yaml,
    headers: { "content-type": "application/yaml" },
  });
}

function messages(reply: { body: unknown }): string[] {
  return (reply.body as { detail: { msg: string }[] }).detail.map((issue) => issue.msg);
}

/** The default checker, telling when a check begins. */
class WatchedChecker extends SkillChecker {
  private began: (() => void) | undefined;
  /** Resolves when the next check begins. */
  nextCheck(): Promise<void> {
    return new Promise((resolve) => {
      this.began = resolve;
    });
  }
  override check(task: SkillCheckTask) {
    const checking = super.check(task);
    this.began?.();
    return checking;
  }
}

describe("with the default budget", () => {
  let server: TestServer;
  let key: string;
  const checker = new WatchedChecker(10_000);
  beforeAll(async () => {
    server = await startTestServer({ override: (deps) => ({ ...deps, skillChecker: checker }) });
    key = await server.keyFor("alice");
  });
  afterAll(() => server?.close());

  it("refuses names longer than 128 characters, at their place", async () => {
    const reply = await put(server, key, unknownReferences(100, 1000));
    expect(reply.status).toBe(422);
    expect(messages(reply)[0]).toMatch(
      /^Value error, line 4, column \d+: "k0x+\.\.\." is not a valid name \(use 1 to 128 letters, digits and _, not starting with a digit\)$/,
    );
  });

  it("answers other requests while a large definition is being checked", async () => {
    const order: string[] = [];
    const began = checker.nextCheck();
    const heavy = put(server, key, unknownReferences(1000, 128)).then((reply) => {
      order.push("put");
      return reply;
    });
    // Sent once the check has begun: a check on the HTTP thread would finish before it is read.
    await began;
    const health = await call(server.origin, "GET", "/healthz");
    order.push("healthz");
    expect(health.status).toBe(200);
    const reply = await heavy;
    expect(reply.status).toBe(422);
    expect(messages(reply)[0]).toMatch(/unknown input "r0x+"/);
    expect(order).toEqual(["healthz", "put"]);
  });
});

describe("past a check thread's memory", () => {
  let server: TestServer;
  let key: string;
  // A budget long enough that running out of memory is what ends these checks, even on a busy
  // machine, where filling the heap takes longer.
  const checker = new WatchedChecker(120_000);
  beforeAll(async () => {
    server = await startTestServer({ override: (deps) => ({ ...deps, skillChecker: checker }) });
    key = await server.keyFor("alice");
  });
  afterAll(() => server?.close());

  it("is a 422, and the checks waiting for a thread go on", async () => {
    // Both threads take a hungry definition; the small one waits for a thread meanwhile.
    const began = [checker.nextCheck()];
    const first = put(server, key, memoryHungry());
    await began[0];
    began.push(checker.nextCheck());
    const second = put(server, key, memoryHungry());
    await began[1];
    const small = put(server, key, "id: small\nname: Small\nsteps:\n  - set: { a: 1 }\n", "small");
    for (const reply of [await first, await second]) {
      expect(reply.status).toBe(422);
      expect(reply.body).toEqual({
        detail: [
          {
            loc: ["body"],
            msg: "Value error, the definition is too complex: checking it needed more than 160 MB",
            type: "value_error",
          },
        ],
      });
    }
    // Before the checks waited for a thread in the checker, this one waited in the pool's queue
    // for a thread that was never started again, until its budget ended: a 422 "took longer".
    expect((await small).status).toBe(201);
    expect((await call(server.origin, "GET", "/healthz")).status).toBe(200);
    const listed = await call(server.origin, "GET", "/v1/skill/list", { key });
    expect((listed.body as { id: string }[]).map((skill) => skill.id)).toEqual(["small"]);
  });
});

describe("past SKILL_CHECK_BUDGET_MS", () => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer({ env: { SKILL_CHECK_BUDGET_MS: "10" } });
    key = await server.keyFor("alice");
  });
  afterAll(() => server?.close());

  it("is a 422 saying the definition is too complex, and nothing is stored", async () => {
    const reply = await put(server, key, unknownReferences(1000, 128));
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      detail: [
        {
          loc: ["body"],
          msg: "Value error, the definition is too complex: checking it took longer than 10 ms",
          type: "value_error",
        },
      ],
    });
    const listed = await call(server.origin, "GET", "/v1/skill/list", { key });
    expect(listed.body).toEqual([]);
  });

  it("validate answers the same", async () => {
    const reply = await call(server.origin, "POST", "/v1/skill/validate", {
      key,
      body: unknownReferences(1000, 128),
      headers: { "content-type": "application/yaml" },
    });
    expect(reply.status).toBe(422);
    expect(messages(reply)).toEqual([
      "Value error, the definition is too complex: checking it took longer than 10 ms",
    ]);
  });
});
