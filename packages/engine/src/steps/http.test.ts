import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSkillDefinition } from "../definition/parse.js";
import { createRunFiles } from "../files/run-files.js";
import type { NetworkPolicy } from "../network/policy.js";
import { LOCAL_TEST_NETWORK } from "../network/test-support/local-network.js";
import { executeSkill } from "../run/execute-skill.js";
import type { EngineEvent, ExecuteSkillOptions } from "../run/types.js";

let server: Server;
let base: string;
let flakyCalls = 0;

async function readBody(request: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of request) text += chunk;
  return text;
}

function send(response: ServerResponse, status: number, type: string, body: string) {
  response.writeHead(status, { "content-type": type }).end(body);
}

const routes: Record<string, (request: IncomingMessage, response: ServerResponse) => unknown> = {
  "/item.json": (_request, response) =>
    send(response, 200, "application/json", '{"title":"Widget","price":9.5}'),
  "/echo": async (request, response) => {
    const body = await readBody(request);
    const echoed = {
      method: request.method,
      content_type: request.headers["content-type"] ?? null,
      token: request.headers["x-token"] ?? null,
      body,
    };
    send(response, 201, "application/json; charset=utf-8", JSON.stringify(echoed));
  },
  "/text": (_request, response) => send(response, 200, "text/plain", "just text"),
  "/fail": (_request, response) => send(response, 500, "text/plain", "database\n  down"),
  "/bad-json": (_request, response) => send(response, 200, "application/json", "{nope"),
  "/problem": (_request, response) =>
    send(response, 404, "application/problem+json", '{"detail":"gone"}'),
  "/empty": (_request, response) => response.writeHead(204).end(),
  "/empty-json": (_request, response) => send(response, 200, "application/json", ""),
  "/headers": (_request, response) => {
    response.setHeader("X-Custom", "yes");
    response.setHeader("Set-Cookie", ["a=1", "b=2"]);
    send(response, 200, "text/plain", "");
  },
  "/proto-headers": (_request, response) => {
    // Raw header pairs: names a plain object would take for its prototype's members.
    response.writeHead(200, [
      "Constructor",
      "c",
      "__proto__",
      "p",
      "toString",
      "t",
      "Content-Type",
      "text/plain",
    ]);
    response.end();
  },
  "/flaky": (_request, response) => {
    flakyCalls += 1;
    if (flakyCalls < 3) send(response, 503, "text/plain", "busy");
    else send(response, 200, "application/json", `{"calls":${flakyCalls}}`);
  },
  // 3,000 bytes, announced by Content-Length.
  "/big": (_request, response) => send(response, 200, "text/plain", "x".repeat(3000)),
  // 3,000 bytes in chunks, with no Content-Length to go by.
  "/big-chunked": (_request, response) => {
    response.writeHead(200, { "content-type": "text/plain" });
    for (let i = 0; i < 3; i++) response.write("y".repeat(1000));
    response.end();
  },
  // Moved for good; the new place fails, or sends JSON that is not.
  "/moved": (_request, response) => response.writeHead(301, { location: "/moved-here" }).end(),
  "/moved-here": (_request, response) => send(response, 502, "text/plain", "bad gateway"),
  "/posted": (_request, response) => response.writeHead(303, { location: "/bad-json" }).end(),
  // Never answers; closed with the server.
  "/slow": () => {},
  // Not followed with follow_redirects: false.
  "/login-redirect": (_request, response) =>
    response.writeHead(302, { location: "/login?next=%2Freport", "set-cookie": "s=1" }).end(),
  // A loop: /loop?n=3 → /loop?n=4 → …
  "/loop": (request, response) => {
    const n = Number(new URL(request.url ?? "/", "http://x").searchParams.get("n") ?? 0);
    response.writeHead(302, { location: `/loop?n=${n + 1}` }).end();
  },
  "/to-ftp": (_request, response) =>
    response.writeHead(302, { location: "ftp://127.0.0.1/file" }).end(),
  // 307 keeps the method and body, 303 turns them into a GET.
  "/keep": (_request, response) => response.writeHead(307, { location: "/echo" }).end(),
  "/see-other": (_request, response) => response.writeHead(303, { location: "/echo" }).end(),
  "/report.csv": (_request, response) => {
    response.writeHead(200, {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="Report 2026.csv"; filename*=UTF-8''R%C3%A9port%202026.csv`,
    });
    response.end(REPORT);
  },
  "/report-moved": (_request, response) =>
    response.writeHead(301, { location: "/report.csv" }).end(),
  "/credentials": (request, response) =>
    send(
      response,
      200,
      "application/json",
      JSON.stringify({
        authorization: request.headers.authorization ?? null,
        cookie: request.headers.cookie ?? null,
      }),
    ),
  // Sends the request on to where `to` says.
  "/go": (request, response) => {
    const to = new URL(request.url ?? "/", "http://x").searchParams.get("to") ?? "/";
    response.writeHead(302, { location: to }).end();
  },
};

const REPORT = "number,amount\nINV-1,10.00\nINV-2,20.00\n";

beforeAll(async () => {
  server = createServer((request, response) => {
    const route = routes[new URL(request.url ?? "/", "http://x").pathname];
    if (route === undefined) send(response, 404, "text/plain", "no such route");
    else void route(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Runs `steps` with inputs.base set; the fixture server is on loopback, allowed by default here. */
async function run(
  steps: string,
  inputs: Record<string, unknown> = {},
  signal?: AbortSignal,
  network: NetworkPolicy = LOCAL_TEST_NETWORK,
  more: Pick<ExecuteSkillOptions, "files" | "limits"> = {},
) {
  const values = { base, ...inputs };
  // Each value is declared as an input, as the import checks every inputs.x a template reads.
  const declared = Object.entries(values)
    .map(([key, value]) => `  - { json_key: ${key}, data_type: ${typeof value} }\n`)
    .join("");
  const definition = parseSkillDefinition(
    `id: s\nname: S\ninputs:\n${declared}steps:\n${steps}`,
    "s.yaml",
  );
  const events: EngineEvent[] = [];
  const started = Date.now();
  const result = await executeSkill({
    definition,
    inputs: values,
    run: { id: "run_1", skill_id: "s" },
    signal: signal ?? new AbortController().signal,
    onEvent: (event) => events.push(event),
    network,
    ...more,
  });
  return { result, events, elapsed: Date.now() - started };
}

function failure(result: Awaited<ReturnType<typeof run>>["result"]): string | undefined {
  return result.outcome === "failed" ? result.error.message : undefined;
}

describe("the http step", () => {
  it("gets JSON, saves the response under save_as and gives it to later steps", async () => {
    const { result, events } = await run(`  - id: fetch
    http: { url: "{{ inputs.base }}/item.json", save_as: response }
  - set:
      title: "{{ data.response.body.title }}"
      status: "{{ steps.fetch.status }}"
`);
    expect(result.outcome).toBe("finished");
    expect(result.data).toMatchObject({
      response: {
        status: 200,
        headers: { "content-type": "application/json" },
        body: { title: "Widget", price: 9.5 },
      },
      title: "Widget",
      status: 200,
    });
    const saved = events.find((event) => event.type === "data_updated");
    expect(saved).toMatchObject({ changes: { response: { status: 200 } } });
  });

  it("posts a json body, templates resolved with their types, and reads the echo", async () => {
    const { result } = await run(
      `  - id: post
    http:
      method: POST
      url: "{{ inputs.base }}/echo"
      headers: { X-Token: "t-{{ inputs.n }}" }
      json: { n: "{{ inputs.n }}", tags: ["{{ inputs.tag }}", 2], ok: true }
      expect_status: 201
  - set: { echo: "{{ steps.post.body }}" }
`,
      { n: 7, tag: "a" },
    );
    expect(result.data.echo).toEqual({
      method: "POST",
      content_type: "application/json",
      token: "t-7",
      body: '{"n":7,"tags":["a",2],"ok":true}',
    });
  });

  it("sends a raw body with the content type it is given", async () => {
    const { result } = await run(
      `  - http:
      method: PUT
      url: "{{ inputs.base }}/echo"
      headers: { Content-Type: text/plain }
      body: "hello {{ inputs.n }}"
      save_as: r
`,
      { n: 1 },
    );
    expect(result.data).toMatchObject({
      r: { body: { method: "PUT", content_type: "text/plain", body: "hello 1" } },
    });
  });

  it("keeps a body that is not JSON as text, and an empty JSON body as null", async () => {
    const { result } = await run(`  - http: { url: "{{ inputs.base }}/text", save_as: text }
  - http: { url: "{{ inputs.base }}/empty", save_as: empty }
  - http: { url: "{{ inputs.base }}/empty-json", save_as: empty_json }
`);
    expect(result.data).toMatchObject({
      text: { status: 200, body: "just text" },
      empty: { status: 204, body: "" },
      empty_json: { status: 200, body: null },
    });
  });

  it("gives headers with lower-case names, repeated ones joined", async () => {
    const { result } = await run('  - http: { url: "{{ inputs.base }}/headers", save_as: r }\n');
    expect(result.data).toMatchObject({
      r: { headers: { "x-custom": "yes", "set-cookie": "a=1, b=2", "content-type": "text/plain" } },
    });
  });

  it("stores headers named constructor, __proto__ or toString as their values", async () => {
    const { result } = await run(
      '  - http: { url: "{{ inputs.base }}/proto-headers", save_as: r }\n',
    );
    const headers = (result.data as { r: { headers: Record<string, unknown> } }).r.headers;
    expect(Object.hasOwn(headers, "__proto__")).toBe(true);
    expect(JSON.parse(JSON.stringify(headers))).toMatchObject(
      JSON.parse('{"constructor":"c","__proto__":"p","tostring":"t","content-type":"text/plain"}'),
    );
  });

  it("fails on a status it does not expect, showing the start of the body", async () => {
    const any2xx = await run('  - http: { url: "{{ inputs.base }}/fail" }\n');
    expect(failure(any2xx.result)).toBe(
      `HTTP 500 from GET ${base}/fail (expected 2xx): database down`,
    );
    const exact = await run(
      '  - http: { url: "{{ inputs.base }}/item.json", expect_status: [201, 202] }\n',
    );
    expect(failure(exact.result)).toBe(
      `HTTP 200 from GET ${base}/item.json (expected 201 or 202): {"title":"Widget","price":9.5}`,
    );
  });

  it("after redirects, names the address that answered, then the request", async () => {
    const moved = await run('  - http: { url: "{{ inputs.base }}/moved" }\n');
    expect(failure(moved.result)).toBe(
      `HTTP 502 from ${base}/moved-here (redirected from GET ${base}/moved) (expected 2xx): bad gateway`,
    );
    const posted = await run(
      '  - http: { method: POST, url: "{{ inputs.base }}/posted", body: x }\n',
    );
    expect(failure(posted.result)).toMatch(
      new RegExp(
        `^${base}/bad-json \\(redirected from POST ${base}/posted\\) sent application/json that is not valid JSON: `,
      ),
    );
  });

  it("accepts an error status that it expects, reading +json bodies as JSON", async () => {
    const { result } = await run(
      '  - http: { url: "{{ inputs.base }}/problem", expect_status: 404, save_as: r }\n',
    );
    expect(result.data).toMatchObject({ r: { status: 404, body: { detail: "gone" } } });
  });

  it("fails on a JSON body that does not parse", async () => {
    const { result } = await run('  - http: { url: "{{ inputs.base }}/bad-json" }\n');
    expect(failure(result)).toMatch(
      new RegExp(`^GET ${base}/bad-json sent application/json that is not valid JSON: `),
    );
  });

  it("names the method, the address and the cause when it cannot connect", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const { result } = await run(
      `  - http: { method: DELETE, url: "http://127.0.0.1:${port}/x" }\n`,
    );
    expect(result).toMatchObject({ outcome: "failed", error: { step: "step 1 (http)" } });
    expect(failure(result)).toBe(
      `DELETE http://127.0.0.1:${port}/x failed: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
  });

  it("refuses an address that is not http or https", async () => {
    const { result } = await run('  - http: { url: "{{ inputs.where }}" }\n', {
      where: "file:///etc/passwd",
    });
    expect(failure(result)).toBe("GET file:///etc/passwd: not an http:// or https:// address");
  });

  it("gives up after its own timeout, and after the step's", async () => {
    const own = await run('  - http: { url: "{{ inputs.base }}/slow", timeout: 100ms }\n');
    expect(failure(own.result)).toBe(`GET ${base}/slow timed out after 100ms`);
    expect(own.elapsed).toBeLessThan(1000);
    const step = await run('  - http: { url: "{{ inputs.base }}/slow" }\n    timeout: 100ms\n');
    expect(failure(step.result)).toBe("step timed out after 100ms");
    expect(step.elapsed).toBeLessThan(1000);
  });

  it("is retried until it succeeds", async () => {
    flakyCalls = 0;
    const { result, events } = await run(`  - id: flaky
    http: { url: "{{ inputs.base }}/flaky" }
    retry: { attempts: 3, backoff: 10ms }
  - set: { calls: "{{ steps.flaky.body.calls }}" }
`);
    expect(result).toEqual({ outcome: "finished", data: { calls: 3 } });
    expect(events.filter((event) => event.type === "step_failed")).toMatchObject([
      { attempt: 1, message: `HTTP 503 from GET ${base}/flaky (expected 2xx): busy` },
      { attempt: 2 },
    ]);
  });

  it("stops at once when the run is aborted during a slow request", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort("cancelled"), 50);
    const { result, events, elapsed } = await run(
      '  - http: { url: "{{ inputs.base }}/slow" }\n    retry: { attempts: 3 }\n',
      {},
      controller.signal,
    );
    expect(elapsed).toBeLessThan(1000);
    expect(result).toMatchObject({
      outcome: "aborted",
      reason: "cancelled",
      step: { label: "step 1 (http)" },
    });
    expect(events.map((event) => event.type)).toEqual([
      "run_started",
      "step_started",
      "run_aborted",
    ]);
  });
});

describe("the http step's body limit", () => {
  it.each(["/big", "/big-chunked"])(
    "stops reading %s past max_bytes and fails the step saying so",
    async (path) => {
      const { result } = await run(
        `  - http: { url: "{{ inputs.base }}${path}", max_bytes: 1000 }\n`,
      );
      expect(failure(result)).toMatch(
        new RegExp(
          `^GET ${base}${path}: the response body is (2.9 KB|more than 1000 bytes), over the limit of 1000 bytes \\(1000 bytes\\); set max_bytes on the step to read more$`,
        ),
      );
    },
  );

  it("keeps max_bytes within the run's limit: a step cannot lift it", async () => {
    const over = await run(
      `  - http: { url: "{{ inputs.base }}/big-chunked", max_bytes: 999999999999 }\n`,
      {},
      undefined,
      LOCAL_TEST_NETWORK,
      { limits: { httpResponseBytes: 1000 } },
    );
    expect(failure(over.result)).toMatch(
      new RegExp(
        `^GET ${base}/big-chunked: the response body is more than 1000 bytes, over the limit of 1000 bytes \\(1000 bytes\\); the most a run reads into memory; save_to_file keeps a larger body as a run file$`,
      ),
    );
  });

  it("reads a body within max_bytes whole", async () => {
    const { result } = await run(
      `  - id: get\n    http: { url: "{{ inputs.base }}/big-chunked", max_bytes: 3000 }\n  - set: { n: "{{ $length(steps.get.body) }}" }\n`,
    );
    expect(result).toMatchObject({ outcome: "finished", data: { n: 3000 } });
  });
});

describe("the http step's redirects", () => {
  it("with follow_redirects: false gives the 3xx itself, its location header included", async () => {
    const { result } = await run(
      '  - http: { url: "{{ inputs.base }}/login-redirect", follow_redirects: false, save_as: r }\n',
    );
    expect(result).toMatchObject({
      outcome: "finished",
      data: {
        r: { status: 302, headers: { location: "/login?next=%2Freport", "set-cookie": "s=1" } },
      },
    });
    const strict = await run(
      '  - http: { url: "{{ inputs.base }}/login-redirect", follow_redirects: false, expect_status: 200 }\n',
    );
    expect(failure(strict.result)).toBe(`HTTP 302 from GET ${base}/login-redirect (expected 200)`);
    const failing = await run(
      '  - http: { url: "{{ inputs.base }}/fail", follow_redirects: false }\n',
    );
    expect(failure(failing.result)).toBe(
      `HTTP 500 from GET ${base}/fail (expected 2xx or 3xx): database down`,
    );
  });

  it("keeps the method and body through a 307 and turns a 303 into a GET", async () => {
    const { result } = await run(`  - id: kept
    http: { method: POST, url: "{{ inputs.base }}/keep", body: hello, headers: { Content-Type: text/plain }, expect_status: 201 }
  - id: seen
    http: { method: POST, url: "{{ inputs.base }}/see-other", body: hello, headers: { Content-Type: text/plain }, expect_status: 201 }
  - set: { kept: "{{ steps.kept.body }}", seen: "{{ steps.seen.body }}" }
`);
    expect(result.data).toEqual({
      kept: { method: "POST", content_type: "text/plain", token: null, body: "hello" },
      seen: { method: "GET", content_type: null, token: null, body: "" },
    });
  });

  it("sends credentials on within the origin, never to another one", async () => {
    // localhost is the same server under another origin.
    const other = base.replace("127.0.0.1", "localhost");
    const steps = (to: string) => `  - http:
      url: "{{ inputs.base }}/go?to=${encodeURIComponent(to)}"
      headers: { Authorization: Bearer t, Cookie: c=1 }
      save_as: r
`;
    const same = await run(steps(`${base}/credentials`));
    expect(same.result.data).toMatchObject({
      r: { body: { authorization: "Bearer t", cookie: "c=1" } },
    });
    const elsewhere = await run(steps(`${other}/credentials`));
    expect(elsewhere.result.data).toMatchObject({
      r: { body: { authorization: null, cookie: null } },
    });
  });

  it("stops after 20 redirects, and at one that leaves http(s)", async () => {
    const loop = await run('  - http: { url: "{{ inputs.base }}/loop" }\n');
    expect(failure(loop.result)).toBe(`GET ${base}/loop failed: more than 20 redirects`);
    const ftp = await run('  - http: { url: "{{ inputs.base }}/to-ftp" }\n');
    expect(failure(ftp.result)).toBe(
      `GET ${base}/to-ftp failed: redirected to ftp://127.0.0.1/file: not an http:// or https:// address`,
    );
  });
});

describe("the http step's cookies: browser", () => {
  it("fails clearly in a run that has no browser", async () => {
    const { result } = await run(
      '  - http: { url: "{{ inputs.base }}/item.json", cookies: browser }\n',
    );
    expect(failure(result)).toBe(
      `GET ${base}/item.json: cookies: browser needs a browser, and this runner has none`,
    );
  });
});

describe("the http step's save_to_file", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "skillrun-http-files-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("streams the body into a run file and gives {status, headers, file}", async () => {
    const files = createRunFiles({ dir: join(dir, "saved") });
    const { result } = await run(
      `  - id: report
    http: { url: "{{ inputs.base }}/report-moved", save_to_file: "report-{{ 1 + 1 }}.csv", save_as: r }
  - set: { file: "{{ steps.report.file.file }}" }
`,
      {},
      undefined,
      LOCAL_TEST_NETWORK,
      { files },
    );
    const sha256 = createHash("sha256").update(REPORT).digest("hex");
    expect(result).toEqual({
      outcome: "finished",
      data: {
        r: {
          status: 200,
          headers: expect.objectContaining({ "content-type": "text/csv; charset=utf-8" }),
          file: {
            file: "report-2.csv",
            name: "Réport 2026.csv",
            bytes: Buffer.byteLength(REPORT),
            content_type: "text/csv; charset=utf-8",
            sha256,
          },
        },
        file: "report-2.csv",
      },
    });
    expect(await readFile(join(dir, "saved", "report-2.csv"), "utf8")).toBe(REPORT);
    expect(files.list()).toMatchObject([{ name: "report-2.csv", sha256 }]);
  });

  it("is held to the run's file limit, not the body limit, and keeps nothing past it", async () => {
    const files = createRunFiles({ dir: join(dir, "limited") });
    const steps = (path: string) =>
      `  - http: { url: "{{ inputs.base }}${path}", save_to_file: big.txt }\n`;
    // Over the 1000-byte body limit, within the 5000-byte file limit.
    const within = await run(steps("/big-chunked"), {}, undefined, LOCAL_TEST_NETWORK, {
      files,
      limits: { httpResponseBytes: 1000, downloadBytes: 5000 },
    });
    expect(within.result.outcome).toBe("finished");
    for (const path of ["/big", "/big-chunked"]) {
      const over = await run(steps(path), {}, undefined, LOCAL_TEST_NETWORK, {
        files,
        limits: { downloadBytes: 2000 },
      });
      expect(failure(over.result)).toMatch(
        new RegExp(
          `^GET ${base}${path}: the file is (2.9 KB|more than 2 KB), over the limit of 2 KB \\(2000 bytes\\) for a file a run fetches$`,
        ),
      );
    }
    expect(files.list().map((file) => file.name)).toEqual(["big.txt"]);
    expect(await readdir(join(dir, "limited"))).toEqual(["big.txt"]);
  });

  it("does not save an answer whose status it does not accept", async () => {
    const files = createRunFiles({ dir: join(dir, "refused") });
    const { result } = await run(
      '  - http: { url: "{{ inputs.base }}/fail", save_to_file: x.txt }\n',
      {},
      undefined,
      LOCAL_TEST_NETWORK,
      { files },
    );
    expect(failure(result)).toBe(`HTTP 500 from GET ${base}/fail (expected 2xx): database down`);
    expect(files.list()).toEqual([]);
  });
});
