import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunSession } from "../src/domain/api-types.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { FixtureApi } from "./support/fixture-api.js";
import { call, TIMESTAMP } from "./support/http.js";
import { RunClient } from "./support/runs.js";
import { type SkillrunProcess, startWorkerProcess } from "./support/skillrun-process.js";

// Values with characters that change when JSON-escaped or percent-encoded, so every form a step
// may write them in is looked for.
const TOKEN = 'tok+Q7x9/"secret"=value';
const PASSWORD = 'pw "Hunter2" 💥';

/** Every form of the clear values that must never leave the server. */
const CLEAR_FORMS = [TOKEN, PASSWORD].flatMap((value) => [
  value,
  JSON.stringify(value).slice(1, -1),
  encodeURIComponent(value),
]);

function expectNoClearValue(text: string, where: string): void {
  for (const form of CLEAR_FORMS) expect(text, `${where} holds ${form}`).not.toContain(form);
}

// Logs both values, sends them to a loopback service (which echoes them back), keeps what it
// answered, then fails with both in its message.
const SECRETIVE = `
id: skill_secretive
name: Secretive
inputs:
  - { json_key: base_url, data_type: string }
  - { json_key: password, data_type: string, secret: true }
steps:
  - log: "signing in with {{ secrets.api_token }} and {{ inputs.password }}"
  - id: login
    http:
      method: POST
      url: "{{ inputs.base_url }}/login?token={{ $encodeUrlComponent(secrets.api_token) }}"
      headers: { Authorization: "Bearer {{ secrets.api_token }}" }
      json: { password: "{{ inputs.password }}" }
      expect_status: [200, 401]
      save_as: login
  - set: { note: "token {{ secrets.api_token }}", length: "{{ $length(inputs.password) }}" }
  - fail: "gave up with {{ secrets.api_token }} / {{ inputs.password }}"
`;

describe("a run that uses a secret and a secret input", () => {
  let server: TestServer;
  let service: FixtureApi;
  let alice: RunClient;
  let log = "";
  /** The text of every response the test read. */
  const responses: string[] = [];
  let run: RunSession;

  async function read(method: string, path: string, json?: unknown) {
    const reply = await call(server.origin, method, path, {
      key: alice.key,
      ...(json !== undefined && { json }),
    });
    responses.push(`${method} ${path} → ${reply.status} ${reply.text}`);
    return reply;
  }

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        log += chunk.toString("utf8");
        done();
      },
    });
    server = await startTestServer({
      worker: { concurrency: 1 },
      logger: pino({ level: "trace" }, sink),
    });
    service = await FixtureApi.start();
    // Rejects the login, quoting the address and body it received.
    service.on("POST", "/login", (request) => ({
      status: 401,
      text: `rejected ${request.url} with ${request.body}`,
    }));
    alice = new RunClient(server.origin, await server.keyFor("alice"));
    await server.importSkillYaml("alice", SECRETIVE);

    const put = await read("PUT", "/v1/secret/api_token", { value: TOKEN });
    expect(put.status, put.text).toBe(200);
    // Hostile bodies that carry the value must not bring it into the log either.
    expect((await read("PUT", "/v1/secret/api_token", { value: `${TOKEN}\u0000` })).status).toBe(
      422,
    );
    const malformed = await call(server.origin, "PUT", "/v1/secret/api_token", {
      key: alice.key,
      body: `{"value": "${TOKEN}`,
    });
    expect(malformed.status).toBe(422);
    responses.push(malformed.text);

    const started = await read("POST", "/v1/run/", {
      skill_id: "skill_secretive",
      inputs: { base_url: service.origin, password: PASSWORD },
    });
    expect(started.status, started.text).toBe(200);
    run = await alice.ended((started.body as RunSession).id, 30_000);
  });

  afterAll(async () => {
    await server?.close();
    await service?.close();
  });

  it("gives the clear values to what the skill calls", () => {
    const [login] = service.requestsTo("POST", "/login");
    expect(login?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(new URL(login?.url ?? "", "http://x").searchParams.get("token")).toBe(TOKEN);
    expect(JSON.parse(login?.body ?? "{}")).toEqual({ password: PASSWORD });
  });

  it("shows *** in the run's inputs, data, error and step log", async () => {
    expect(run.state).toBe("reset");
    expect(run.inputs).toEqual({ base_url: service.origin, password: "***" });
    expect(run.data?.error).toEqual({ step: "step 4 (fail)", message: "gave up with *** / ***" });
    expect(run.data?.note).toBe("token ***");
    // Computed from the clear value: the skill saw it.
    expect(run.data?.length).toBe([...PASSWORD].length);
    const login = run.data?.login as { status: number; body: string };
    expect(login.status).toBe(401);
    expect(login.body).toBe('rejected /login?token=*** with {"password":"***"}');

    const events = await alice.events(run.id);
    expect(events.find((e) => e.type === "log")?.message).toBe("signing in with *** and ***");
    expect(events.find((e) => e.type === "step_failed")?.message).toBe("gave up with *** / ***");
    expect(events.find((e) => e.type === "run_failed")?.message).toBe(
      "step 4 (fail): gave up with *** / ***",
    );
  });

  it("never sends a clear value in any response, nor writes one to the server's log", async () => {
    expect((await read("GET", `/v1/run/${run.id}`)).status).toBe(200);
    expect((await read("GET", "/v1/run/list")).status).toBe(200);
    expect((await read("GET", `/v1/run/${run.id}/events?limit=1000`)).status).toBe(200);
    const skill = await read("GET", "/v1/skill/skill_secretive");
    expect((skill.body as { inputs: unknown[] }).inputs).toContainEqual({
      id: "input_password",
      json_key: "password",
      data_type: "string",
      required: true,
      secret: true,
    });
    expect((await read("GET", "/v1/skill/list")).status).toBe(200);
    const secrets = await read("GET", "/v1/secret/list");
    expect(secrets.body).toEqual([
      {
        name: "api_token",
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.any(String),
      },
    ]);

    const all = responses.join("\n");
    expect(all).toContain('"password":"***"');
    expectNoClearValue(all, "a response");
    // The log is real: it has the requests and the run, just no value.
    expect(log).toContain("/v1/secret/api_token");
    expect(log).toContain(run.id);
    expectNoClearValue(log, "the server's log");
  });

  it("keeps the secret encrypted at rest, and the run's secret input only until it ends", async () => {
    const stored = await server.db.prisma.secret.findMany();
    expect(stored).toHaveLength(1);
    expect(stored[0]?.ciphertext).toMatch(/^v1\.[0-9a-f]{16}\.[\w-]{16}\.[\w-]+\.[\w-]{22}$/);
    expectNoClearValue(JSON.stringify(stored), "the secrets table");
    const row = await server.db.prisma.run.findUnique({ where: { id: run.id } });
    expect(row?.secretInputs).toBeNull();
    expectNoClearValue(JSON.stringify(row), "the run's row");
    const events = await server.db.prisma.runEvent.findMany({ where: { runId: run.id } });
    expectNoClearValue(JSON.stringify(events), "the step log's rows");
  });
});

// Reads a secret and a secret input; a run of it finishes unless one of them does not open.
const READER = `
id: skill_reader
name: Reader
inputs:
  - { json_key: password, data_type: string, secret: true }
steps:
  - log: "read {{ secrets.api_token }} and {{ inputs.password }}"
`;

// Reads no secret itself: the skill it calls does, and gets a password from it.
const CALLER = `
id: skill_caller
name: Caller
steps:
  - let: { pw: "pw-given-by-a-call" }
  - call: { skill: skill_reader, inputs: { password: "{{ vars.pw }}" } }
`;

const NEEDS_UNSET = `
id: skill_needs_unset
name: Needs an unset secret
steps:
  - log: "{{ secrets.never_set }} and {{ secrets.api_token }}"
`;

/** The sealed value with one character of its ciphertext changed. */
function altered(sealed: string): string {
  const parts = sealed.split(".");
  const ciphertext = parts[3] ?? "";
  parts[3] = `${ciphertext[0] === "A" ? "B" : "A"}${ciphertext.slice(1)}`;
  return parts.join(".");
}

describe("sealed values that do not open, and secrets that are not set", () => {
  let server: TestServer;
  let worker: SkillrunProcess | undefined;
  let alice: RunClient;
  let carol: RunClient;
  const runs: Record<string, RunSession> = {};

  beforeAll(async () => {
    // No worker yet: the runs wait in the queue while their rows are read and altered.
    server = await startTestServer();
    alice = new RunClient(server.origin, await server.keyFor("alice"));
    carol = new RunClient(server.origin, await server.keyFor("carol"));
    for (const owner of ["alice", "carol"]) {
      await server.importSkillYaml(owner, READER, NEEDS_UNSET, CALLER);
    }
    for (const client of [alice, carol]) {
      const reply = await call(server.origin, "PUT", "/v1/secret/api_token", {
        key: client.key,
        json: { value: TOKEN },
      });
      expect(reply.status).toBe(200);
    }
    const inputs = { password: PASSWORD };
    runs.good = await alice.start("skill_reader", inputs);
    runs.alteredInput = await alice.start("skill_reader", inputs);
    runs.copiedInput = await alice.start("skill_reader", inputs);
    runs.unset = await alice.start("skill_needs_unset");
    runs.viaCall = await alice.start("skill_caller");
    runs.copiedSecret = await carol.start("skill_reader", inputs);
  });

  afterAll(async () => {
    await worker?.stop();
    await server?.close();
  });

  it("stores a queued run's secret input sealed, and *** in its inputs", async () => {
    const row = await server.db.prisma.run.findUnique({ where: { id: runs.good?.id } });
    expect(JSON.parse(row?.inputs ?? "")).toEqual({ password: "***" });
    const sealed = JSON.parse(row?.secretInputs ?? "{}") as Record<string, string>;
    expect(sealed.password).toMatch(/^v1\.[0-9a-f]{16}\./);
    expectNoClearValue(JSON.stringify(row), "a queued run's row");
    expect(runs.good?.inputs).toEqual({ password: "***" });
  });

  it("fails a run whose sealed values were altered or copied, saying so, and runs the rest", async () => {
    const prisma = server.db.prisma;
    const sealedOf = async (id: string | undefined) =>
      JSON.parse((await prisma.run.findUnique({ where: { id } }))?.secretInputs ?? "{}") as Record<
        string,
        string
      >;
    const good = await sealedOf(runs.good?.id);
    const own = await sealedOf(runs.alteredInput?.id);
    await prisma.run.update({
      where: { id: runs.alteredInput?.id },
      data: { secretInputs: JSON.stringify({ password: altered(own.password ?? "") }) },
    });
    // Sealed for another run: it does not open for this one.
    await prisma.run.update({
      where: { id: runs.copiedInput?.id },
      data: { secretInputs: JSON.stringify(good) },
    });
    // Sealed for alice's secret of that name: it does not open as carol's.
    const alices = await prisma.secret.findUnique({
      where: { owner_name: { owner: "alice", name: "api_token" } },
    });
    await prisma.secret.update({
      where: { owner_name: { owner: "carol", name: "api_token" } },
      data: { ciphertext: alices?.ciphertext ?? "" },
    });

    // A worker of its own process, with the same SECRETS_KEY as the server that sealed them.
    worker = await startWorkerProcess(server.databaseUrl);
    const ended = async (client: RunClient, run: RunSession | undefined) =>
      client.ended(run?.id ?? "", 60_000);

    const finished = await ended(alice, runs.good);
    expect(finished.state, JSON.stringify(finished.data)).toBe("finish");
    const goodLog = await alice.events(finished.id);
    expect(goodLog.find((e) => e.type === "log")?.message).toBe("read *** and ***");

    // The secrets of a called skill are given too, and what the call passes is masked.
    const viaCall = await ended(alice, runs.viaCall);
    expect(viaCall.state, JSON.stringify(viaCall.data)).toBe("finish");
    const callLog = await alice.events(viaCall.id);
    expect(callLog.find((e) => e.type === "log")?.message).toBe("read *** and ***");
    expect(JSON.stringify(callLog)).not.toContain("pw-given-by-a-call");

    const notAuthentic =
      "it does not authenticate: the stored value was altered, or copied from another secret or run";
    const expectations: [RunClient, RunSession | undefined, string][] = [
      [alice, runs.alteredInput, `the secret input "password" cannot be read: ${notAuthentic}`],
      [alice, runs.copiedInput, `the secret input "password" cannot be read: ${notAuthentic}`],
      [carol, runs.copiedSecret, `secret "api_token" cannot be read: ${notAuthentic}`],
      [
        alice,
        runs.unset,
        'secret "never_set" is not set; set it with PUT /v1/secret/never_set or skillrun secrets set never_set --owner alice',
      ],
    ];
    for (const [client, queued, message] of expectations) {
      const run = await ended(client, queued);
      expect(run.state).toBe("reset");
      expect(run.data).toEqual({ error: { step: null, message } });
      const events = await client.events(run.id);
      expect(events.map((e) => e.type)).toEqual(["run_claimed", "run_failed"]);
      expectNoClearValue(JSON.stringify({ run, events }), "a failed run");
    }

    // Ended runs keep no sealed input.
    const rows = await prisma.run.findMany({ select: { secretInputs: true } });
    expect(rows.map((row) => row.secretInputs)).toEqual(rows.map(() => null));
  }, 90_000);
});

describe("the secret operations", () => {
  let server: TestServer;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    server = await startTestServer();
    alice = await server.keyFor("alice");
    bob = await server.keyFor("bob");
  });

  afterAll(async () => {
    await server?.close();
  });

  const put = (key: string, name: string, body: unknown) =>
    call(server.origin, "PUT", `/v1/secret/${name}`, { key, json: body });

  it("sets, replaces (keeping created_at), lists by name and deletes, never showing a value", async () => {
    const first = await put(alice, "zeta", { value: "first value" });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      name: "zeta",
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: expect.stringMatching(TIMESTAMP),
    });
    const created = (first.body as { created_at: string }).created_at;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await put(alice, "zeta", { value: "second value", ignored: true });
    expect(second.status).toBe(200);
    const replaced = second.body as { created_at: string; updated_at: string };
    expect(replaced.created_at).toBe(created);
    expect(replaced.updated_at > created).toBe(true);
    expect((await put(alice, "_alpha1", { value: "a" })).status).toBe(200);

    const list = await call(server.origin, "GET", "/v1/secret/list", { key: alice });
    expect((list.body as { name: string }[]).map((s) => s.name)).toEqual(["_alpha1", "zeta"]);
    expect(list.text).not.toContain("value");

    // Sealed afresh each time: a random IV, so equal values do not look equal.
    const before = await server.db.prisma.secret.findUnique({
      where: { owner_name: { owner: "alice", name: "_alpha1" } },
    });
    await put(alice, "_alpha1", { value: "a" });
    const after = await server.db.prisma.secret.findUnique({
      where: { owner_name: { owner: "alice", name: "_alpha1" } },
    });
    expect(after?.ciphertext).not.toBe(before?.ciphertext);

    const deleted = await call(server.origin, "DELETE", "/v1/secret/zeta", { key: alice });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    const again = await call(server.origin, "DELETE", "/v1/secret/zeta", { key: alice });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ detail: "Secret not found" });
  });

  it("keeps owners apart: another owner's secret is invisible, undeletable, and a name of its own", async () => {
    expect((await put(alice, "shared_name", { value: "alice's" })).status).toBe(200);
    const list = await call(server.origin, "GET", "/v1/secret/list", { key: bob });
    expect(list.body).toEqual([]);
    const deleted = await call(server.origin, "DELETE", "/v1/secret/shared_name", { key: bob });
    expect(deleted.status).toBe(404);
    expect((await put(bob, "shared_name", { value: "bob's" })).status).toBe(200);
    const names = async (key: string) =>
      ((await call(server.origin, "GET", "/v1/secret/list", { key })).body as { name: string }[])
        .map((s) => s.name)
        .filter((name) => name === "shared_name");
    expect(await names(alice)).toEqual(["shared_name"]);
    expect(await names(bob)).toEqual(["shared_name"]);
    expect((await server.repos.secrets.reveal("alice", ["shared_name"])).values).toEqual({
      shared_name: "alice's",
    });
  });

  it("refuses bad names with a 422 at path.name", async () => {
    const pattern = {
      loc: ["path", "name"],
      msg: "String should match pattern '^(?!list$)[A-Za-z_][A-Za-z0-9_]*$'",
      type: "string_pattern_mismatch",
    };
    for (const name of ["1abc", "a-b", "a.b", "%C3%A9", "a%00b", "a%20b", "%6C%69%73%74"]) {
      const reply = await put(alice, name, { value: "x" });
      expect(reply.status, name).toBe(422);
      expect(reply.body, name).toEqual({ detail: [pattern] });
    }
    const long = await put(alice, "a".repeat(129), { value: "x" });
    expect(long.body).toEqual({
      detail: [
        {
          loc: ["path", "name"],
          msg: "String should have at most 128 characters",
          type: "string_too_long",
        },
      ],
    });
    expect((await put(alice, "a".repeat(128), { value: "x" })).status).toBe(200);
    // `list` itself is the list: no secret can be set or deleted by that name.
    expect((await put(alice, "list", { value: "x" })).status).toBe(404);
    expect((await call(server.origin, "DELETE", "/v1/secret/list", { key: alice })).status).toBe(
      404,
    );
  });

  it("refuses empty, huge, non-text and NUL values, storing nothing", async () => {
    const cases: [unknown, unknown][] = [
      [{ value: "" }, ["body", "value", "string_too_short"]],
      [{ value: "x".repeat(65_537) }, ["body", "value", "string_too_long"]],
      [{ value: "a\u0000b" }, ["body", "value", "value_error"]],
      [{ value: "\ud800" }, ["body", "value", "value_error"]],
      [{ value: 42 }, ["body", "value", "string_type"]],
      [{ value: null }, ["body", "value", "string_type"]],
      [{}, ["body", "value", "missing"]],
      [["value"], ["body", "model_attributes_type"]],
    ];
    for (const [body, expected] of cases) {
      const reply = await put(alice, "hostile", body);
      expect(reply.status, JSON.stringify(body).slice(0, 50)).toBe(422);
      const [issue] = (reply.body as { detail: { loc: unknown[]; type: string }[] }).detail;
      expect([...(issue?.loc ?? []), issue?.type]).toEqual(expected);
    }
    const tooLarge = await call(server.origin, "PUT", "/v1/secret/hostile", {
      key: alice,
      json: { value: "x".repeat(1024 * 1024) },
    });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body).toEqual({ detail: "Request body too large" });
    const malformed = await call(server.origin, "PUT", "/v1/secret/hostile", {
      key: alice,
      body: '{"value": "x',
    });
    expect(malformed.status).toBe(422);
    expect((malformed.body as { detail: { type: string }[] }).detail[0]?.type).toBe("json_invalid");
    expect(await server.db.prisma.secret.count({ where: { name: "hostile" } })).toBe(0);

    // The largest value is accepted, and given back whole to a run.
    const largest = "é".repeat(65_536);
    expect((await put(alice, "largest", { value: largest })).status).toBe(200);
    expect((await server.repos.secrets.reveal("alice", ["largest"])).values.largest).toBe(largest);
  });

  it("answers 401 without a key", async () => {
    for (const [method, path] of [
      ["PUT", "/v1/secret/x"],
      ["GET", "/v1/secret/list"],
      ["DELETE", "/v1/secret/x"],
    ] as const) {
      const reply = await call(server.origin, method, path, {
        ...(method === "PUT" && { json: { value: "x" } }),
      });
      expect(reply.status).toBe(401);
      expect(reply.headers.get("www-authenticate")).toBe("Bearer");
    }
  });

  it("lets requests setting one new name at once all succeed, leaving one secret", async () => {
    const replies = await Promise.all(
      Array.from({ length: 12 }, (_, i) => put(alice, "raced", { value: `value ${i}` })),
    );
    expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200));
    expect(await server.db.prisma.secret.count({ where: { owner: "alice", name: "raced" } })).toBe(
      1,
    );
  });

  it("refuses a new secret past 1000 for an owner, and still replaces existing ones", async () => {
    const now = new Date();
    await server.db.prisma.secret.createMany({
      data: Array.from({ length: 1000 }, (_, i) => ({
        owner: "dora",
        name: `s${i}`,
        ciphertext: "v1.not-opened-here",
        createdAt: now,
        updatedAt: now,
      })),
    });
    const dora = await server.keyFor("dora");
    const refused = await put(dora, "one_more", { value: "x" });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({
      detail: [
        {
          loc: ["path", "name"],
          msg: "Value error, an owner has at most 1000 secrets; delete one first",
          type: "value_error",
        },
      ],
    });
    expect((await put(dora, "s7", { value: "x" })).status).toBe(200);
  });
});
