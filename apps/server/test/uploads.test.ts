import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunSession } from "../src/domain/api-types.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call, type Reply, skillRecord } from "./support/http.js";

/**
 * `POST /v1/file` (docs/api.md "Files"): an owner's upload kept for runs' `file` inputs, limited in
 * size, and what `POST /v1/run/` accepts for a `file` input: an upload id of the same owner or an
 * http(s) URL.
 */

const LIMIT = 64 * 1024;
const SKILL = "skill_with_file";

let server: TestServer;
let alice: string;
let bob: string;

beforeAll(async () => {
  server = await startTestServer({ env: { FILE_MAX_BYTES: String(LIMIT) } });
  alice = await server.keyFor("alice");
  bob = await server.keyFor("bob");
  await server.importSkills("alice", [
    skillRecord(SKILL, "With a file", [
      { id: "in_report", json_key: "report", data_type: "file", required: true },
      { id: "in_extra", json_key: "extra", data_type: "file", required: false },
    ]),
  ]);
});

afterAll(async () => {
  await server?.close();
});

interface Uploaded {
  id: string;
  name: string;
  bytes: number;
  content_type: string;
  sha256: string;
  created_at: string;
}

/** Sends a multipart body as a browser's form would; `parts` are added in order. */
async function post(
  parts: [field: string, value: string | Blob, filename?: string][],
  key: string | null = alice,
): Promise<Reply> {
  const form = new FormData();
  for (const [field, value, filename] of parts) {
    if (typeof value === "string") form.append(field, value);
    else form.append(field, value, filename);
  }
  const response = await fetch(`${server.baseUrl}/file`, {
    method: "POST",
    headers: key === null ? {} : { authorization: `Bearer ${key}` },
    body: form,
  });
  const bytes = new Uint8Array(await response.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  return {
    status: response.status,
    headers: response.headers,
    body: text === "" ? text : JSON.parse(text),
    text,
    bytes,
  };
}

async function upload(
  bytes: Uint8Array,
  filename: string,
  type = "",
  key = alice,
): Promise<Uploaded> {
  const reply = await post([["file", new Blob([bytes], { type }), filename]], key);
  expect(reply.status, reply.text).toBe(200);
  return reply.body as Uploaded;
}

/** What is in the uploads folder, temporary files included. */
function uploadsOnDisk(): string[] {
  return existsSync(server.fileStore.uploadsDir) ? readdirSync(server.fileStore.uploadsDir) : [];
}

function startRun(inputs: Record<string, unknown>, key = alice): Promise<Reply> {
  return call(server.origin, "POST", "/v1/run/", { key, json: { skill_id: SKILL, inputs } });
}

describe("uploading a file", () => {
  it("keeps the exact bytes privately and answers with its id, name, size, type and hash", async () => {
    const bytes = Uint8Array.from({ length: 5000 }, (_, i) => (i * 31) % 256);
    const file = await upload(bytes, "invoices.csv", "text/csv");
    expect(file).toEqual({
      id: expect.stringMatching(
        /^file_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      ),
      name: "invoices.csv",
      bytes: 5000,
      content_type: "text/csv",
      sha256: createHash("sha256").update(bytes).digest("hex"),
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    const path = server.fileStore.uploadPathOf(file.id);
    expect(new Uint8Array(readFileSync(path))).toEqual(bytes);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(server.fileStore.uploadsDir).mode & 0o777).toBe(0o700);
    expect(uploadsOnDisk().filter((name) => name.startsWith("."))).toEqual([]);
  });

  it("keeps the name sanitised and guesses the type from it when the part gives none", async () => {
    const file = await upload(new Uint8Array([1, 2, 3]), "../../Résumé final.pdf");
    expect(file.name).toBe("Resume_final.pdf");
    expect(file.content_type).toBe("application/pdf");
    for (const given of ["...", ".", "..", "folder/"]) {
      const unnamed = await upload(new Uint8Array([1]), given);
      expect(unnamed.name, given).toBe("file");
      expect(unnamed.content_type).toBe("application/octet-stream");
    }
  });

  it("keeps an empty file", async () => {
    const file = await upload(new Uint8Array(), "empty.txt", "text/plain");
    expect(file.bytes).toBe(0);
  });

  it("keeps a file exactly at FILE_MAX_BYTES and refuses one byte more with 413, leaving nothing behind", async () => {
    await upload(new Uint8Array(LIMIT), "at-limit.bin");
    const before = uploadsOnDisk();
    const reply = await post([["file", new Blob([new Uint8Array(LIMIT + 1)]), "over.bin"]]);
    expect(reply.status).toBe(413);
    expect(reply.body).toEqual({
      detail: `File too large: over the limit of 64 KB (${LIMIT} bytes)`,
    });
    expect(uploadsOnDisk()).toEqual(before);
  });

  it("needs an API key before it reads the body", async () => {
    const before = uploadsOnDisk();
    const reply = await post([["file", new Blob(["x"]), "x.txt"]], null);
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ detail: "Not authenticated" });
    expect(uploadsOnDisk()).toEqual(before);
  });

  it("answers 422 for a body without a file, a file in another field, two files and a text field named file", async () => {
    const cases: [string, Parameters<typeof post>[0], unknown[]][] = [
      [
        "no parts",
        [["note", "hello"]],
        [{ loc: ["body", "file"], msg: "Field required", type: "missing" }],
      ],
      [
        "text in the file field",
        [["file", "not a file"]],
        [{ loc: ["body", "file"], msg: "Field required", type: "missing" }],
      ],
      [
        "a file in another field",
        [["document", new Blob(["x"]), "x.txt"]],
        [
          {
            loc: ["body", "document"],
            msg: "Value error, one file is accepted, in the field `file`",
            type: "value_error",
          },
        ],
      ],
      [
        "two files",
        [
          ["file", new Blob(["a"]), "a.txt"],
          ["file", new Blob(["b"]), "b.txt"],
        ],
        [
          {
            loc: ["body", "file"],
            msg: "Value error, one file is accepted, in the field `file`",
            type: "value_error",
          },
        ],
      ],
    ];
    const before = uploadsOnDisk();
    for (const [name, parts, detail] of cases) {
      const reply = await post(parts);
      expect(reply.status, name).toBe(422);
      expect(reply.body, name).toEqual({ detail });
    }
    expect(uploadsOnDisk()).toEqual(before);
  });

  it("answers 422 for a body that is not multipart, or multipart cut short", async () => {
    const json = await call(server.origin, "POST", "/v1/file", { key: alice, json: { file: "x" } });
    expect(json.status).toBe(422);
    const cut = await call(server.origin, "POST", "/v1/file", {
      key: alice,
      headers: { "content-type": "multipart/form-data; boundary=XYZ" },
      body: '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nabc',
    });
    expect(cut.status).toBe(422);
    expect(cut.body).toEqual({
      detail: [
        {
          loc: ["body"],
          msg: "Value error, the multipart body could not be read: Unexpected end of form",
          type: "value_error",
        },
      ],
    });
    const noBoundary = await call(server.origin, "POST", "/v1/file", {
      key: alice,
      headers: { "content-type": "multipart/form-data" },
      body: "abc",
    });
    expect(noBoundary.status).toBe(422);
  });
});

describe("file inputs of POST /v1/run/", () => {
  it("accepts an upload id of the caller and an http(s) URL, and keeps them as given", async () => {
    const file = await upload(new TextEncoder().encode("a,b\n"), "in.csv", "text/csv");
    const reply = await startRun({ report: file.id, extra: "https://files.example.com/x.pdf" });
    expect(reply.status, reply.text).toBe(200);
    const run = reply.body as RunSession;
    expect(run.inputs).toEqual({ report: file.id, extra: "https://files.example.com/x.pdf" });
    const read = await call(server.origin, "GET", `/v1/run/${run.id}`, { key: alice });
    expect((read.body as RunSession).inputs).toEqual(run.inputs);
  });

  it("refuses an unknown id, another owner's upload, a non-URL and another scheme with a 422 at the input", async () => {
    const bobs = await upload(new Uint8Array([1]), "bob.bin", "", bob);
    const notUrl = {
      msg: "Value error, a file input takes the id of an uploaded file (POST /v1/file) or an http(s) URL",
      type: "value_error",
    };
    const cases: [unknown, object][] = [
      [
        "file_00000000-0000-7000-8000-000000000000",
        {
          msg: "Value error, no uploaded file of yours has the id file_00000000-0000-7000-8000-000000000000",
          type: "value_error",
        },
      ],
      [
        bobs.id,
        {
          msg: `Value error, no uploaded file of yours has the id ${bobs.id}`,
          type: "value_error",
        },
      ],
      ["report.csv", notUrl],
      ["ftp://files.example.com/report.csv", notUrl],
      ["file:///etc/passwd", notUrl],
      ["https://", notUrl],
      [{ file: "x.csv" }, { msg: "Input should be a valid string", type: "string_type" }],
    ];
    for (const [value, issue] of cases) {
      const reply = await startRun({ report: value });
      expect(reply.status, JSON.stringify(value)).toBe(422);
      expect(reply.body).toEqual({ detail: [{ loc: ["body", "inputs", "report"], ...issue }] });
    }
  });
});
