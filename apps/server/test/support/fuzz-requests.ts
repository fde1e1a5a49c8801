import fc from "fast-check";
import { ADMIN, SCOPES } from "../../src/domain/scopes.js";
import { type Operation, resolve } from "./spec.js";

/** One request a fuzz case sends: method, path and query (already encoded), headers, body. */
export interface FuzzRequest {
  method: string;
  /** Path and query, percent-encoded as they go on the wire. */
  target: string;
  headers: Record<string, string>;
  body?: string;
  /** Built from valid parts only: the answer must be a 2xx or a 404. */
  valid: boolean;
  /**
   * A 422 whose detail says this is also a right answer to a valid request: an owner's limit
   * (of webhook endpoints), which no request shape avoids once it is reached.
   */
  limitMessage?: string;
}

/** What a valid request may name: things that exist on the server under test, or might. */
export interface Pools {
  key: string;
  runIds: string[];
  skillIds: string[];
  /** `limit` and `cursor` of real next pages, as the server's Link headers give them. */
  runCursors: string[];
  eventCursors: string[];
  /** Signed video addresses (path and query) the server made. */
  videoTargets: string[];
  /** Signed live view addresses (path and query) the server made. */
  liveTargets: string[];
  /** Secret names: the caller's, another owner's, unknown ones. */
  secretNames: string[];
  /** Browser profile names: the caller's, another owner's, unknown ones. */
  profileNames: string[];
  /** Webhook endpoint ids: the caller's, another owner's, unknown ones. */
  webhookIds: string[];
  /** Delivery ids: of the caller's endpoint, and unknown ones. */
  deliveryIds: string[];
  /** Signed run file addresses (path and query) the server made. */
  fileTargets: string[];
  /** Schedule ids: the caller's, another owner's, unknown ones. */
  scheduleIds: string[];
}

// Text PostgreSQL cannot hold, text that is not UTF-8, separators, traversal, long text.
const NASTY = [
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfffy",
  "\ufeff",
  "\u202e",
  "é",
  "😀",
  "../../etc/passwd",
  "%",
  "&",
  "=",
  "#",
  "?",
  " ",
  "list",
  "run_",
  "null",
  "[]",
  "{}",
  "x".repeat(129),
  "y".repeat(600),
];

/** Any text, hostile text favoured. */
export const hostileText = fc.oneof(
  fc.constantFrom(...NASTY),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme-ascii", maxLength: 20 }),
);

/**
 * Percent-encodes every UTF-16 unit's UTF-8 bytes, unpaired surrogates as the three bytes
 * WTF-8 gives them (which no UTF-8 decoder accepts), so any string can go into a URL.
 */
export function percentEncode(text: string): string {
  let out = "";
  for (const char of text) {
    const unit = char.codePointAt(0) ?? 0;
    const bytes =
      unit >= 0xd800 && unit <= 0xdfff
        ? [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
        : [...Buffer.from(char, "utf8")];
    out += bytes.map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join("");
  }
  return out;
}

// Raw text in a URL: percent-encoded, or malformed escapes as a client could send them.
const hostileUrlPart = fc.oneof(
  { weight: 4, arbitrary: hostileText.map(percentEncode) },
  { weight: 1, arbitrary: fc.constantFrom("%", "%zz", "%C0%AF", "%ED%A0%80", "%FF", "%00") },
);

// A path id that is `.` or `..` (`%2E`) is resolved away by the client's URL parser before the
// server sees it, so the request would be another operation's; hostile-input.db.test.ts sends such
// paths raw and expects a 404.
const hostilePathId = hostileUrlPart.filter((part) => !/^(?:\.|%2e){1,2}$/i.test(part));

type Json = Record<string, unknown>;

interface QueryParameter {
  name: string;
  schema: Json;
}

function followed(value: unknown): Json {
  const node = value as Json;
  return typeof node.$ref === "string" ? (resolve(node.$ref) as Json) : node;
}

/** The query parameters an operation declares, `$ref`s followed. */
export function queryParameters(op: Operation): QueryParameter[] {
  const operation = resolve(op.pointer) as Json;
  return ((operation.parameters as unknown[]) ?? [])
    .map(followed)
    .filter((p) => p.in === "query")
    .map((p) => ({ name: String(p.name), schema: followed(p.schema) }));
}

/** A value of the wrong kind for a query parameter of this schema. */
function invalidQueryValue(schema: Json): fc.Arbitrary<string[]> {
  const numberish = fc.constantFrom(
    "1e2",
    "0x10",
    "0b1",
    "Infinity",
    "NaN",
    "-1",
    "0",
    "1001",
    "1.5",
    "",
    "9".repeat(40),
    "+",
  );
  const one =
    schema.type === "integer"
      ? fc.oneof(numberish.map(encodeURIComponent), hostileUrlPart)
      : hostileUrlPart;
  // Repeated keys, for arrays and for scalars that should appear once.
  return fc.array(one, { minLength: 1, maxLength: 3 });
}

/** Query text from name → encoded values, plus unknown parameters now and then. */
function queryText(values: [string, string[]][]): string {
  const parts = values.flatMap(([name, vs]) => vs.map((v) => `${encodeURIComponent(name)}=${v}`));
  return parts.length === 0 ? "" : `?${parts.join("&")}`;
}

/** The operation's path with its id (a run's, a skill's, a secret's name) and a run file's name. */
function pathOf(op: Operation, id: string, name = "report.csv"): string {
  const path = op.path.replace("{id}", id).replace("{delivery}", name);
  // A path with one parameter calls it `{id}`, or `{name}` for a secret; a run file's has both,
  // and a redelivery's `{id}` and `{delivery}`.
  return `${op.base}${path.replace("{name}", op.path.includes("{id}") ? name : id)}`;
}

/** Whether the operation's path names a run, skill or secret. */
function hasPathId(op: Operation): boolean {
  return op.path.includes("{id}") || op.path.includes("{name}");
}

// Text the database can store: no NUL, no half of a surrogate pair.
const storableText = (maxLength: number) =>
  fc
    .string({ unit: "grapheme", minLength: 1, maxLength })
    .filter((text) => !/[\0\p{Cs}]/u.test(text));

const BOUNDARY = "fuzz-boundary-7MA4YWxk";

/** A multipart/form-data body holding `parts`, as a form would send it. */
function multipart(
  parts: { field: string; filename?: string; type?: string; content: string }[],
): string {
  const lines = parts.map((part) => {
    const filename = part.filename === undefined ? "" : `; filename="${part.filename}"`;
    const type = part.type === undefined ? "" : `\r\nContent-Type: ${part.type}`;
    return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.field}"${filename}${type}\r\n\r\n${part.content}\r\n`;
  });
  return `${lines.join("")}--${BOUNDARY}--\r\n`;
}

const MULTIPART_TYPE = { "content-type": `multipart/form-data; boundary=${BOUNDARY}` };

// A file name a form can carry in a quoted parameter: no quote, backslash or control character.
const formFileName = hostileText.filter(
  (text) =>
    text.length > 0 &&
    [...text].every((c) => c >= " " && c !== "\u007f" && c !== '"' && c !== "\\"),
);

const JSON_TYPE = { "content-type": "application/json" };

/** The agent operations' protocol header, as `skillrun agent` sends it. */
const AGENT_PROTOCOL_HEADERS = { "skillrun-agent-protocol": "1" };

/** Agent ids as agents draw them. */
const agentId = fc
  .uint8Array({ minLength: 16, maxLength: 16 })
  .map((bytes) => `agent_${Buffer.from(bytes).toString("hex")}`);
const KEY_SCOPES = [ADMIN, ...SCOPES];

// A valid skill definition, as YAML or JSON: a bounded set of ids (so the fuzz stores a few
// skills, replaced over and over) and log lines of plain words (no template to get wrong).
const skillDefinition = fc
  .record({
    id: fc.integer({ min: 0, max: 20 }).map((i) => `skill_fuzz_${i}`),
    name: fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,40}$/),
    lines: fc.array(fc.stringMatching(/^[A-Za-z0-9 .,]{1,60}$/), { minLength: 1, maxLength: 5 }),
    yaml: fc.boolean(),
  })
  .map(({ id, name, lines, yaml }) => {
    const definition = { id, name, steps: lines.map((line) => ({ log: line })) };
    return yaml
      ? { id, body: JSON.stringify(definition, null, 2), type: "application/yaml" }
      : { id, body: JSON.stringify(definition), type: "application/json" };
  });

// Makes every Idempotency-Key of a valid case its own, also when fast-check repeats a value.
let keySeq = 0;

// Idempotency-Key values that are not one (as fetch can send them: Latin-1, no CR, LF or NUL),
// and valid ones, which a hostile body then meets.
const HOSTILE_IDEMPOTENCY_KEYS = [
  "",
  " ",
  "two words",
  "tab\there",
  "caf\u00e9",
  "\u00ff\u00fe",
  "k".repeat(256),
  "k".repeat(10_000),
  "fuzz-key",
  "list",
];

// A storage state as Playwright gives one: cookies of any text, localStorage by origin.
const storedCookie = fc.record({
  name: storableText(40),
  value: storableText(200),
  domain: fc.constantFrom(".example.com", "example.com", "127.0.0.1", "xn--bcher-kva.example"),
  path: fc.constantFrom("/", "/app", "/a b"),
  expires: fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 4_102_444_800 })),
  httpOnly: fc.boolean(),
  secure: fc.boolean(),
  sameSite: fc.constantFrom("Strict", "Lax", "None"),
});
/** An upload id no owner has. */
const NO_FILE = "file_00000000-0000-7000-8000-000000000000";

const storageState = fc.record(
  {
    cookies: fc.array(storedCookie, { maxLength: 5 }),
    origins: fc.array(
      fc.record({
        origin: fc.constantFrom("https://example.com", "http://127.0.0.1:8080"),
        localStorage: fc.array(fc.record({ name: storableText(20), value: storableText(100) }), {
          maxLength: 4,
        }),
      }),
      { maxLength: 2 },
    ),
  },
  { requiredKeys: ["cookies"] },
);

/** A valid request of `op`, built from what exists on the server. */
function validRequest(op: Operation, pools: Pools): fc.Arbitrary<FuzzRequest> {
  const auth = { authorization: `Bearer ${pools.key}` };
  const runId = fc.constantFrom(...pools.runIds);
  const limit = fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined });
  const make = (target: string, extra: Partial<FuzzRequest> = {}): FuzzRequest => ({
    method: op.method,
    target,
    headers: auth,
    valid: true,
    ...extra,
  });
  switch (op.operationId) {
    case "startRun":
      return fc
        .record({
          skill_id: fc.constantFrom(...pools.skillIds),
          // `s` is required; `n` is optional and may be given as text.
          inputs: fc.record(
            {
              s: hostileText,
              n: fc.oneof(
                fc.double({ noNaN: true, noDefaultInfinity: true }),
                fc.constantFrom("42", " 1e3 ", "-0.5"),
              ),
            },
            { requiredKeys: ["s"] },
          ),
        })
        .chain((body) =>
          // Now and then with an Idempotency-Key no other case uses, so it starts a run too.
          fc.boolean().map((withKey) => {
            const keyed: Record<string, string> = withKey
              ? { "idempotency-key": `fuzz-${++keySeq}` }
              : {};
            return make(pathOf(op, ""), {
              body: JSON.stringify(body),
              headers: { ...auth, ...JSON_TYPE, ...keyed },
            });
          }),
        );
    case "listRuns":
      return fc
        .record({
          skill_id: fc.option(fc.constantFrom(...pools.skillIds), { nil: undefined }),
          state_filter: fc.uniqueArray(
            fc.constantFrom(
              "play",
              "pause",
              "finish",
              "reset",
              "cancel",
              "timeout",
              "editing",
              "queued",
            ),
            { maxLength: 3 },
          ),
          limit,
          cursor: fc.option(fc.constantFrom(...pools.runCursors), { nil: undefined }),
        })
        .map((q) => {
          const values: [string, string[]][] = [];
          if (q.skill_id !== undefined) values.push(["skill_id", [q.skill_id]]);
          if (q.state_filter.length > 0) values.push(["state_filter", q.state_filter]);
          if (q.limit !== undefined) values.push(["limit", [String(q.limit)]]);
          if (q.cursor !== undefined) values.push(["cursor", [q.cursor]]);
          return make(`${pathOf(op, "")}${queryText(values)}`);
        });
    case "getRunSummary":
      // Valid: absent, or an instant within the last 7 days (minutes back, so none is future).
      return fc
        .option(fc.integer({ min: 1, max: 7 * 24 * 60 - 1 }), { nil: undefined })
        .map((minutes) =>
          make(
            minutes === undefined
              ? pathOf(op, "")
              : `${pathOf(op, "")}${queryText([["since", [encodeURIComponent(new Date(Date.now() - minutes * 60_000).toISOString())]]])}`,
          ),
        );
    case "listRunEvents":
      return fc
        .record({
          id: runId,
          limit,
          cursor: fc.option(fc.constantFrom(...pools.eventCursors), { nil: undefined }),
        })
        .map(({ id, limit: l, cursor }) => {
          const values: [string, string[]][] = [];
          if (l !== undefined) values.push(["limit", [String(l)]]);
          if (cursor !== undefined) values.push(["cursor", [cursor]]);
          return make(`${pathOf(op, id)}${queryText(values)}`);
        });
    case "getRunVideo":
      return fc
        .tuple(fc.constantFrom(...pools.videoTargets), fc.boolean())
        .map(([target, ranged]) => ({
          method: "GET",
          target,
          headers: ranged ? { range: "bytes=0-9" } : ({} as Record<string, string>),
          valid: true,
        }));
    case "getRunLive":
      return fc.constantFrom(...pools.liveTargets).map((target) => ({
        method: "GET",
        target,
        headers: {} as Record<string, string>,
        valid: true,
      }));
    case "getRunFile":
      return fc
        .tuple(fc.constantFrom(...pools.fileTargets), fc.boolean())
        .map(([target, ranged]) => ({
          method: "GET",
          target,
          headers: ranged ? { range: "bytes=0-9" } : ({} as Record<string, string>),
          valid: true,
        }));
    case "uploadFile":
      return fc
        .record({
          filename: formFileName,
          type: fc.option(fc.constantFrom("text/csv", "application/pdf", "image/png", "x/y"), {
            nil: undefined,
          }),
          content: fc.string({ maxLength: 200 }),
          note: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
        })
        .map(({ filename, type, content, note }) =>
          make(pathOf(op, ""), {
            headers: { ...auth, ...MULTIPART_TYPE },
            body: multipart([
              ...(note === undefined ? [] : [{ field: "note", content: note }]),
              { field: "file", filename, ...(type !== undefined && { type }), content },
            ]),
          }),
        );
    case "getSkill":
    case "getSkillYaml":
      return fc
        .constantFrom(...pools.skillIds)
        .map((id) => make(pathOf(op, encodeURIComponent(id))));
    case "listSkills":
    case "listSecrets":
      return fc.constant(make(pathOf(op, "")));
    case "putSecret":
      return fc
        .record({
          // A bounded set of names, so an owner's limit of secrets is never what answers.
          name: fc.oneof(
            fc.constantFrom(...pools.secretNames),
            fc.integer({ min: 0, max: 40 }).map((i) => `fuzz_${i}`),
          ),
          value: fc.oneof(storableText(200), fc.constant("v".repeat(65_536))),
        })
        .map(({ name, value }) =>
          make(pathOf(op, name), {
            body: JSON.stringify({ value }),
            headers: { ...auth, ...JSON_TYPE },
          }),
        );
    case "deleteSecret":
      return fc.constantFrom(...pools.secretNames).map((name) => make(pathOf(op, name)));
    case "listProfiles":
      return fc.constant(make(pathOf(op, "")));
    case "getProfile":
    case "deleteProfile":
      return fc.constantFrom(...pools.profileNames).map((name) => make(pathOf(op, name)));
    case "putProfile":
      return fc
        .record({
          // A bounded set of names, so an owner's limit of profiles is never what answers.
          name: fc.oneof(
            fc.constantFrom(...pools.profileNames),
            fc.integer({ min: 0, max: 40 }).map((i) => `fuzz-${i}@example.com`),
          ),
          state: storageState,
        })
        .map(({ name, state }) =>
          make(pathOf(op, encodeURIComponent(name)), {
            body: JSON.stringify(state),
            headers: { ...auth, ...JSON_TYPE },
          }),
        );
    case "streamRuns":
      return fc.option(fc.integer({ min: 0, max: 1e9 }), { nil: undefined }).map((last) =>
        make(pathOf(op, ""), {
          headers: { ...auth, ...(last !== undefined && { "last-event-id": String(last) }) },
        }),
      );
    case "streamRunEvents":
      return fc
        .tuple(runId, fc.option(fc.integer({ min: 0, max: 1e9 }), { nil: undefined }))
        .map(([id, last]) =>
          make(pathOf(op, id), {
            headers: { ...auth, ...(last !== undefined && { "last-event-id": String(last) }) },
          }),
        );
    case "createWebhook":
      return fc
        .record(
          {
            // Addresses the test server's rules allow (it allows private networks), where nothing listens.
            url: fc
              .tuple(
                fc.constantFrom("http://127.0.0.1:9/", "http://[::1]:9/", "http://localhost:9/"),
                storableText(40).map(percentEncode),
              )
              .map(([base, path]) => `${base}${path}`),
            events: fc.uniqueArray(
              fc.constantFrom(
                "run.finished",
                "run.failed",
                "run.cancelled",
                "run.timeout",
                "run.paused",
              ),
              { minLength: 1, maxLength: 5 },
            ),
          },
          { requiredKeys: ["url"] },
        )
        .map((body) =>
          make(pathOf(op, ""), {
            body: JSON.stringify(body),
            headers: { ...auth, ...JSON_TYPE },
            limitMessage: "webhook endpoints; delete one first",
          }),
        );
    case "listWebhooks":
      return fc.constant(make(pathOf(op, "")));
    case "deleteWebhook":
      return fc.constantFrom(...pools.webhookIds).map((id) => make(pathOf(op, id)));
    case "listWebhookDeliveries":
      return fc
        .tuple(
          fc.constantFrom(...pools.webhookIds),
          fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
        )
        .map(([id, l]) =>
          make(`${pathOf(op, id)}${l === undefined ? "" : queryText([["limit", [String(l)]]])}`),
        );
    case "redeliverWebhook":
      return fc
        .tuple(fc.constantFrom(...pools.webhookIds), fc.constantFrom(...pools.deliveryIds))
        .map(([id, delivery]) => make(pathOf(op, id, delivery)));
    case "createSchedule":
    case "updateSchedule":
      return fc
        .record(
          {
            skill_id: fc.constantFrom(...pools.skillIds),
            inputs: fc.record({ s: hostileText }),
            cron: fc.constantFrom("* * * * *", "0 9 * * MON-FRI", "30 0 * * * *", "0 0 1 * *"),
            timezone: fc.constantFrom("UTC", "Europe/Berlin", "america/new_york", "Asia/Kolkata"),
            overlap: fc.constantFrom("skip", "buffer_one", "allow"),
            catchup: fc.constantFrom("0", "90s", "1.5h", "24h"),
            jitter: fc.constantFrom("0", "500ms", "10s"),
            paused: fc.boolean(),
            pause_after_failures: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: null }),
          },
          {
            requiredKeys: op.operationId === "createSchedule" ? ["skill_id", "cron", "inputs"] : [],
          },
        )
        .chain((body) => {
          if (op.operationId === "createSchedule") {
            return fc.constant(
              make(pathOf(op, ""), {
                body: JSON.stringify(body),
                headers: { ...auth, ...JSON_TYPE },
                limitMessage: "schedules (SCHEDULES_PER_OWNER)",
              }),
            );
          }
          const { skill_id: _skill, inputs: _inputs, ...change } = body;
          return fc.constantFrom(...pools.scheduleIds).map((id) =>
            make(pathOf(op, id), {
              body: JSON.stringify(change),
              headers: { ...auth, ...JSON_TYPE },
            }),
          );
        });
    case "previewScheduleRuns":
      // Valid crons and zones only: hostile ones are the invalid requests' part.
      return fc
        .record(
          {
            cron: fc.constantFrom("* * * * *", "0 9 * * MON-FRI", "30 0 * * * *", "0 0 1 * *"),
            timezone: fc.constantFrom("UTC", "europe/berlin", "Asia/Kolkata"),
          },
          { requiredKeys: ["cron"] },
        )
        .map((body) =>
          make(pathOf(op, ""), { body: JSON.stringify(body), headers: { ...auth, ...JSON_TYPE } }),
        );
    case "listSchedules":
      return fc.constant(make(pathOf(op, "")));
    case "getSchedule":
    case "deleteSchedule":
    case "triggerSchedule":
      return fc.constantFrom(...pools.scheduleIds).map((id) => make(pathOf(op, id)));
    case "listScheduleTicks":
      return fc
        .tuple(
          fc.constantFrom(...pools.scheduleIds),
          fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined }),
        )
        .map(([id, l]) =>
          make(`${pathOf(op, id)}${l === undefined ? "" : queryText([["limit", [String(l)]]])}`),
        );
    case "createKey":
      return fc
        .record(
          {
            // Well under 100 code points: a grapheme may be several.
            name: storableText(25),
            scopes: fc.uniqueArray(fc.constantFrom(...KEY_SCOPES), { minLength: 1, maxLength: 9 }),
          },
          { requiredKeys: ["scopes"] },
        )
        .map((body) =>
          make(pathOf(op, ""), {
            body: JSON.stringify(body),
            headers: { ...auth, ...JSON_TYPE },
            limitMessage: "active keys; revoke one first",
          }),
        );
    case "listKeys":
      return fc.constant(make(pathOf(op, "")));
    case "deleteKey":
      // Never the fuzzing key itself: the cases after would all be 401s.
      return fc
        .constantFrom("key_unknown", "key_0190a9f4-6c1b-7d3a-9b1e-2f4c5d6e7f80", "list")
        .map((id) => make(pathOf(op, id)));
    case "putSkill":
    case "validateSkill":
      return skillDefinition.map(({ id, body, type }) =>
        make(pathOf(op, op.operationId === "putSkill" ? id : ""), {
          body,
          headers: { ...auth, "content-type": type },
        }),
      );
    case "rerunRun":
      return fc
        .tuple(
          runId,
          fc.option(fc.record({ from_step: fc.string({ minLength: 1, maxLength: 40 }) }), {
            nil: undefined,
          }),
        )
        .map(([id, body]) =>
          make(pathOf(op, id), {
            ...(body === undefined
              ? {}
              : { body: JSON.stringify(body), headers: { ...auth, ...JSON_TYPE } }),
            // The run's state and what it kept decide: one that did not fail, a step it kept no
            // checkpoint for.
            limitMessage: '"loc":["body","from_step"]',
          }),
        );
    case "agentClaim":
      return agentId.map((agent_id) =>
        make(pathOf(op, ""), {
          body: JSON.stringify({ agent_id, name: "fuzz", version: "0.0.2", wait: 0 }),
          headers: { ...auth, ...JSON_TYPE, ...AGENT_PROTOCOL_HEADERS },
        }),
      );
    case "agentRunEvents":
    case "agentRunEnd":
      // No fuzzing agent holds a run: each is a 404 or a fenced 409, nothing written.
      return fc.tuple(runId, agentId, hostileText).map(([id, agent_id, message]) =>
        make(pathOf(op, id), {
          body: JSON.stringify(
            op.operationId === "agentRunEnd"
              ? { agent_id, state: "finish", events: [], data: { message } }
              : { agent_id, events: [{ at: new Date().toISOString(), type: "log", message }] },
          ),
          headers: { ...auth, ...JSON_TYPE, ...AGENT_PROTOCOL_HEADERS },
        }),
      );
    case "agentPutRunFile":
    case "agentPutRunVideo":
      return fc.tuple(runId, agentId).map(([id, agent_id]) =>
        make(`${pathOf(op, id)}?agent_id=${agent_id}`, {
          body: multipart([{ field: "file", filename: "a.csv", type: "text/csv", content: "a,b" }]),
          headers: { ...auth, ...MULTIPART_TYPE, ...AGENT_PROTOCOL_HEADERS },
        }),
      );
    case "agentGetRunUpload":
      // No fuzzing agent holds a run: each is a 404 or a fenced 409, and no upload is read.
      return fc
        .tuple(runId, agentId, fc.constantFrom(NO_FILE, "x", "%2e%2e"))
        .map(([id, agent_id, file]) =>
          make(`${pathOf(op, id).replace("{file_id}", file)}?agent_id=${agent_id}`, {
            headers: { ...auth, ...AGENT_PROTOCOL_HEADERS },
          }),
        );
    case "agentPutRunProfile":
      return fc.tuple(runId, agentId, storageState).map(([id, agent_id, state]) =>
        make(`${pathOf(op, id)}?agent_id=${agent_id}`, {
          body: JSON.stringify(state),
          headers: { ...auth, ...JSON_TYPE, ...AGENT_PROTOCOL_HEADERS },
        }),
      );
    case "listAgents":
      return fc.constant(make(pathOf(op, "")));
    default:
      // getRun, cancelRun, getRunVideoUrl: a path id only.
      return runId.map((id) => make(pathOf(op, id)));
  }
}

// Bodies of every wrong kind: wrong types, missing and extra fields, hostile text, deep values.
function hostileBody(pools: Pools): fc.Arbitrary<string> {
  const deep = fc
    .integer({ min: 30, max: 6000 })
    .map(
      (n) => `{"skill_id":"${pools.skillIds[0]}","inputs":{"s":${"[".repeat(n)}${"]".repeat(n)}}}`,
    );
  const json = fc.oneof(
    fc.jsonValue({ maxDepth: 4 }),
    fc.record(
      {
        skill_id: fc.oneof(
          hostileText,
          fc.jsonValue({ maxDepth: 2 }),
          fc.constantFrom(...pools.skillIds),
        ),
        inputs: fc.oneof(
          fc.dictionary(hostileText, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
          fc.jsonValue({ maxDepth: 2 }),
          fc.record({ s: fc.jsonValue({ maxDepth: 2 }), n: fc.oneof(hostileText, fc.jsonValue()) }),
        ),
        extra: fc.jsonValue({ maxDepth: 2 }),
      },
      { requiredKeys: [] },
    ),
    // A webhook's body: hostile addresses and events.
    fc.record(
      {
        url: fc.oneof(
          hostileText,
          fc.jsonValue({ maxDepth: 2 }),
          fc.constantFrom("http://169.254.169.254/", "file:///etc/passwd", "http://127.0.0.1:9/"),
        ),
        events: fc.oneof(fc.array(hostileText, { maxLength: 6 }), fc.jsonValue({ maxDepth: 2 })),
      },
      { requiredKeys: [] },
    ),
    // A schedule's body: hostile crons, zones, durations and counts.
    fc.record(
      {
        skill_id: fc.oneof(hostileText, fc.constantFrom(...pools.skillIds)),
        cron: fc.oneof(
          hostileText,
          fc.jsonValue({ maxDepth: 2 }),
          fc.constantFrom("* * * * * *", "*/1 * * * *", "@daily", "0 0 30 2 *", "61 * * * *"),
        ),
        timezone: fc.oneof(
          hostileText,
          fc.constantFrom("+01:00", "Mars/Olympus", "UTC ", "Etc/GMT+5"),
        ),
        overlap: fc.oneof(hostileText, fc.jsonValue({ maxDepth: 1 })),
        catchup: fc.oneof(hostileText, fc.constantFrom("25h", "1d", "-1s", "1e3s", "9999999999h")),
        jitter: fc.oneof(hostileText, fc.constantFrom("2h", "59s", "1m", "0.0001s")),
        pause_after_failures: fc.oneof(
          fc.jsonValue({ maxDepth: 1 }),
          fc.constantFrom(0, 1001, 1.5),
        ),
        skill: fc.jsonValue({ maxDepth: 1 }),
      },
      { requiredKeys: [] },
    ),
    // A key's body: hostile names and scopes.
    fc.record(
      {
        name: fc.oneof(hostileText, fc.jsonValue({ maxDepth: 2 }), fc.constant("n".repeat(101))),
        scopes: fc.oneof(
          fc.array(fc.oneof(hostileText, fc.constantFrom(...KEY_SCOPES)), { maxLength: 12 }),
          fc.jsonValue({ maxDepth: 2 }),
        ),
      },
      { requiredKeys: [] },
    ),
    // A browser profile's storage state: hostile cookies and origins, wrong types, deep values.
    fc.record(
      {
        cookies: fc.oneof(
          fc.array(
            fc.record(
              {
                name: fc.oneof(hostileText, fc.jsonValue({ maxDepth: 1 })),
                value: fc.oneof(hostileText, fc.constant("v".repeat(4097))),
                domain: fc.oneof(hostileText, fc.constant("")),
                path: hostileText,
                expires: fc.oneof(fc.double(), fc.constant(-2), hostileText),
                httpOnly: fc.oneof(fc.boolean(), hostileText),
                secure: fc.jsonValue({ maxDepth: 1 }),
                sameSite: fc.oneof(fc.constantFrom("Strict", "Lax", "None", "lax"), hostileText),
              },
              { requiredKeys: [] },
            ),
            { maxLength: 3 },
          ),
          fc.jsonValue({ maxDepth: 2 }),
        ),
        origins: fc.oneof(
          fc.array(
            fc.record(
              {
                origin: fc.oneof(hostileText, fc.constantFrom("https://a.example", "file:///x")),
                localStorage: fc.oneof(
                  fc.array(fc.record({ name: hostileText, value: hostileText }), { maxLength: 3 }),
                  fc.jsonValue({ maxDepth: 2 }),
                ),
              },
              { requiredKeys: [] },
            ),
            { maxLength: 3 },
          ),
          fc.jsonValue({ maxDepth: 2 }),
        ),
      },
      { requiredKeys: [] },
    ),
    // A secret's body: hostile, wrongly typed or too long values.
    fc.record(
      {
        value: fc.oneof(
          hostileText,
          fc.jsonValue({ maxDepth: 2 }),
          fc.constantFrom("", "x".repeat(65_537)),
        ),
        extra: fc.jsonValue({ maxDepth: 2 }),
      },
      { requiredKeys: [] },
    ),
  );
  return fc.oneof(
    { weight: 6, arbitrary: json.map((v) => JSON.stringify(v) ?? "null") },
    { weight: 1, arbitrary: deep },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 60 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "",
        "{",
        "[1,",
        '{"skill_id":',
        "\u0000",
        "x".repeat(2 * 1024 * 1024),
      ),
    },
  );
}

const WRONG_CONTENT_TYPES = [
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/json; charset=latin1",
  "application/xml",
  "application/json; charset=utf-16",
];

// Multipart bodies of every wrong kind: cut short, a file in another field, two files, a text
// field where the file goes, hostile names and types, no boundary, a boundary that never comes.
const hostileMultipart: fc.Arbitrary<[string, string]> = fc.oneof(
  fc
    .record({
      parts: fc.array(
        fc.record({
          field: fc.oneof(fc.constant("file"), hostileText),
          filename: fc.option(hostileText, { nil: undefined }),
          type: fc.option(hostileText, { nil: undefined }),
          content: fc.string({ maxLength: 100 }),
        }),
        { maxLength: 4 },
      ),
      cut: fc.option(fc.nat(), { nil: undefined }),
    })
    .map(({ parts, cut }): [string, string] => {
      const body = multipart(
        parts.map((part) => ({
          field: part.field,
          content: part.content,
          ...(part.filename !== undefined && { filename: part.filename }),
          ...(part.type !== undefined && { type: part.type }),
        })),
      );
      return [
        cut === undefined ? body : body.slice(0, cut % (body.length + 1)),
        MULTIPART_TYPE["content-type"],
      ];
    }),
  fc
    .tuple(
      fc.string({ unit: "binary", maxLength: 80 }),
      fc.constantFrom(
        "multipart/form-data",
        "multipart/form-data; boundary=",
        `multipart/form-data; boundary=${BOUNDARY}`,
        "multipart/mixed; boundary=x",
      ),
    )
    .map(([body, type]): [string, string] => [body, type]),
);

/** An invalid (or at least suspicious) request of `op`: any part may be wrong. */
function invalidRequest(op: Operation, pools: Pools): fc.Arbitrary<FuzzRequest> {
  const parameters = queryParameters(op);
  const query = fc
    .tuple(
      ...parameters.map((p) => fc.option(invalidQueryValue(p.schema), { nil: undefined })),
      fc.option(fc.tuple(hostileUrlPart, hostileUrlPart), { nil: undefined }),
    )
    .map((parts) => {
      const values: [string, string[]][] = [];
      parameters.forEach((p, i) => {
        const value = parts[i] as string[] | undefined;
        if (value !== undefined) values.push([p.name, value]);
      });
      const unknown = parts[parameters.length] as [string, string] | undefined;
      const text = queryText(values);
      if (unknown === undefined) return text;
      return `${text}${text === "" ? "?" : "&"}${unknown[0]}=${unknown[1]}`;
    });
  // An empty secret name leaves `/v1/secret/`, which is no operation at all (a plain 404, as
  // hostile-input.db.test.ts checks for paths the spec does not have).
  const pathId = op.path.includes("{name}")
    ? hostilePathId.filter((part) => part !== "")
    : hostilePathId;
  const id = hasPathId(op)
    ? fc.oneof(
        pathId,
        fc.constantFrom(
          ...pools.runIds,
          ...pools.skillIds,
          ...pools.secretNames,
          ...pools.profileNames,
          ...pools.webhookIds,
          ...pools.scheduleIds,
        ),
      )
    : fc.constant("");
  // An empty name would make the path the list's (`…/files/`), another operation.
  const name = fc.oneof(
    hostilePathId.filter((part) => part !== ""),
    fc.constantFrom("report.csv", "..%2Freport.csv", "a%2Fb"),
  );
  const auth = fc.oneof(
    {
      weight: 8,
      arbitrary: fc.constant({ authorization: `Bearer ${pools.key}` } as Record<string, string>),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Record<string, string>>(
        {},
        { authorization: "Bearer " },
        { authorization: `Basic ${pools.key}` },
        { authorization: `Bearer ${pools.key}x` },
        { "x-api-key": pools.key },
      ),
    },
  );
  const body =
    op.method === "POST" || op.method === "PUT" || op.method === "PATCH"
      ? fc.option(
          fc.oneof(
            fc.tuple(
              hostileBody(pools),
              fc.oneof(
                { weight: 5, arbitrary: fc.constant("application/json") },
                { weight: 1, arbitrary: fc.constantFrom(...WRONG_CONTENT_TYPES) },
              ),
            ),
            ...(op.operationId === "uploadFile" ? [hostileMultipart] : []),
          ),
          { nil: undefined },
        )
      : fc.constant(undefined);
  const idempotencyKey =
    op.operationId === "startRun"
      ? fc.option(fc.constantFrom(...HOSTILE_IDEMPOTENCY_KEYS), { nil: undefined })
      : fc.constant(undefined);
  return fc
    .record({ query, id, name, auth, body, idempotencyKey })
    .map(({ query: q, id: i, name: n, auth: a, body: b, idempotencyKey: k }) => ({
      method: op.method,
      target: `${pathOf(op, i, n)}${q}`,
      headers: {
        ...a,
        ...(b ? { "content-type": b[1] } : {}),
        ...(k === undefined ? {} : { "idempotency-key": k }),
      },
      ...(b && { body: b[0] }),
      valid: false,
    }));
}

/** Requests of `op`: about one in four valid, the rest invalid in any part. */
export function requestsOf(op: Operation, pools: Pools): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(
    { weight: 1, arbitrary: validRequest(op, pools) },
    { weight: 3, arbitrary: invalidRequest(op, pools) },
  );
}
