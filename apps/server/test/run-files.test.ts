import { createHash } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunSession } from "../src/domain/api-types.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { type CallOptions, call, type Reply, rawRequest, skillRecord } from "./support/http.js";
import { tampered, withQuery } from "./support/videos.js";

/**
 * A run's files (docs/api.md "Files"): the owner lists them with signed, expiring addresses, and
 * whoever holds an address gets the exact bytes, with their content type, as an attachment, in
 * ranges; names that are not a run file's, other owners and forged addresses get nothing.
 */

const START = Date.parse("2026-11-22T10:00:00.250Z");
const TTL_SECONDS = 3600;
let now = START;
const clock = { now: () => new Date(now) };

let server: TestServer;
let alice: string;
let bob: string;
const SKILL = "skill_files";

const CSV = new TextEncoder().encode("number,amount\nINV-1,120.50\nINV-2,80.00\n");
/** Every byte value, so any text decoding on the way would show. */
const BINARY = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) % 256);

beforeAll(async () => {
  server = await startTestServer({ clock });
  alice = await server.keyFor("alice");
  bob = await server.keyFor("bob");
  await server.importSkills("alice", [skillRecord(SKILL, "Files")]);
  await server.importSkills("bob", [skillRecord(SKILL, "Bob's files")]);
});

afterAll(async () => {
  await server?.close();
});

beforeEach(() => {
  now = START;
});

function get(url: string, options: CallOptions = { key: alice }): Promise<Reply> {
  return call(server.origin, "GET", url, options);
}

/** GET of a file address as a browser sends it: no Authorization header. */
function open(url: string, headers: Record<string, string> = {}): Promise<Reply> {
  return call(server.origin, "GET", url, { headers });
}

async function newRun(owner = "alice"): Promise<string> {
  const run = await server.repos.runs.create({
    owner,
    skill: { id: SKILL, name: "Files" },
    inputs: {},
  });
  return run.id;
}

interface Listed {
  name: string;
  bytes: number;
  content_type: string;
  sha256: string;
  created_at: string;
  url: string;
}

async function listed(runId: string, key = alice): Promise<Listed[]> {
  const reply = await get(`/v1/run/${runId}/files`, { key });
  expect(reply.status, reply.text).toBe(200);
  return reply.body as Listed[];
}

/** A run of alice's with report.csv (text/csv) and data.bin stored after it. */
async function runWithFiles(): Promise<{ runId: string; files: Listed[] }> {
  const runId = await newRun();
  await server.putRunFile(runId, "report.csv", CSV, {
    contentType: "text/csv",
    createdAt: new Date(START),
  });
  await server.putRunFile(runId, "data.bin", BINARY, { createdAt: new Date(START + 5) });
  return { runId, files: await listed(runId) };
}

function urlOf(files: Listed[], name: string): string {
  const file = files.find((f) => f.name === name);
  expect(file, name).toBeDefined();
  return (file as Listed).url;
}

describe("listing a run's files", () => {
  it("lists nothing for a run without files", async () => {
    expect(await listed(await newRun())).toEqual([]);
  });

  it("lists each file in the order stored, with its size, type, hash and a signed address", async () => {
    const runId = await newRun();
    // Stored later but named earlier: the order is the order stored.
    await server.putRunFile(runId, "z-first.csv", CSV, {
      contentType: "text/csv",
      createdAt: new Date(START),
    });
    await server.putRunFile(runId, "a-second.bin", BINARY, { createdAt: new Date(START + 1) });
    const files = await listed(runId);
    const expires = Math.floor(START / 1000) + TTL_SECONDS;
    expect(files).toEqual([
      {
        name: "z-first.csv",
        bytes: CSV.length,
        content_type: "text/csv",
        sha256: createHash("sha256").update(CSV).digest("hex"),
        created_at: "2026-11-22T10:00:00.250Z",
        url: expect.stringMatching(
          new RegExp(
            `^${server.origin}/v1/run/${runId}/files/z-first\\.csv\\?expires=${expires}&signature=[\\w-]{43}$`,
          ),
        ),
      },
      expect.objectContaining({ name: "a-second.bin", bytes: 1000 }),
    ]);
  });

  it("answers 404 for an unknown run and for another owner's run, as GET /v1/run/{id} does", async () => {
    const { runId } = await runWithFiles();
    for (const reply of [
      await get("/v1/run/run_00000000-0000-7000-8000-000000000000/files"),
      await get(`/v1/run/${runId}/files`, { key: bob }),
      await get(`/v1/run/${runId}`, { key: bob }),
    ]) {
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({ detail: "Run not found" });
    }
  });

  it("needs an API key", async () => {
    const { runId } = await runWithFiles();
    const reply = await get(`/v1/run/${runId}/files`, {});
    expect(reply.status).toBe(401);
    expect(reply.headers.get("www-authenticate")).toBe("Bearer");
  });

  it("builds the addresses on PUBLIC_URL when it is set", async () => {
    const behindProxy = await startTestServer({
      override: (deps) => ({
        ...deps,
        config: { ...deps.config, publicUrl: "https://skillrun.example.com/api/" },
      }),
    });
    try {
      const key = await behindProxy.keyFor("alice");
      await behindProxy.importSkills("alice", [skillRecord(SKILL, "Files")]);
      const run = await behindProxy.repos.runs.create({
        owner: "alice",
        skill: { id: SKILL, name: "Files" },
        inputs: {},
      });
      await behindProxy.putRunFile(run.id, "report.csv", CSV);
      const reply = await call(behindProxy.origin, "GET", `/v1/run/${run.id}/files`, { key });
      expect((reply.body as Listed[])[0]?.url).toMatch(
        new RegExp(`^https://skillrun\\.example\\.com/api/v1/run/${run.id}/files/report\\.csv\\?`),
      );
    } finally {
      await behindProxy.close();
    }
  });
});

describe("serving a file at its signed address", () => {
  it("serves the exact bytes without an API key, with the stored type, as an attachment", async () => {
    const { files } = await runWithFiles();
    const csv = await open(urlOf(files, "report.csv"));
    expect(csv.status).toBe(200);
    expect(csv.bytes).toEqual(CSV);
    expect(csv.headers.get("content-type")).toBe("text/csv");
    expect(csv.headers.get("content-disposition")).toBe('attachment; filename="report.csv"');
    expect(csv.headers.get("x-content-type-options")).toBe("nosniff");
    expect(csv.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    expect(csv.headers.get("accept-ranges")).toBe("bytes");
    const binary = await open(urlOf(files, "data.bin"));
    expect(binary.headers.get("content-type")).toBe("application/octet-stream");
    expect(binary.bytes).toEqual(BINARY);
  });

  it("serves a byte range (206) with exactly those bytes, and answers a range past the end with 416", async () => {
    const { files } = await runWithFiles();
    const url = urlOf(files, "data.bin");
    const part = await open(url, { range: "bytes=100-199" });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 100-199/${BINARY.length}`);
    expect(part.bytes).toEqual(BINARY.slice(100, 200));
    const tail = await open(url, { range: "bytes=-10" });
    expect(tail.status).toBe(206);
    expect(tail.bytes).toEqual(BINARY.slice(-10));
    const past = await open(url, { range: `bytes=${BINARY.length}-` });
    expect(past.status).toBe(416);
    expect(past.headers.get("content-range")).toBe(`bytes */${BINARY.length}`);
    expect(past.body).toEqual({ detail: "Range Not Satisfiable" });
    expect(past.headers.get("content-disposition")).toBeNull();
  });

  it("answers HEAD with the headers and no body", async () => {
    const { files } = await runWithFiles();
    const reply = await call(server.origin, "HEAD", urlOf(files, "report.csv"));
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-length")).toBe(String(CSV.length));
    expect(reply.bytes).toHaveLength(0);
  });

  it("refuses a tampered signature, a later expiry, another file's or the video's signature with 403", async () => {
    const { runId, files } = await runWithFiles();
    const url = urlOf(files, "report.csv");
    const signature = new URL(url).searchParams.get("signature") as string;
    const later = String(Number(new URL(url).searchParams.get("expires")) + 86_400);
    const otherFile = new URL(urlOf(files, "data.bin")).search;
    const video = new URL(server.videoUrlFor(runId)).search;
    for (const forged of [
      withQuery(url, { signature: tampered(signature) }),
      withQuery(url, { expires: later }),
      `/v1/run/${runId}/files/report.csv${otherFile}`,
      `/v1/run/${runId}/files/report.csv${video}`,
    ]) {
      const reply = await open(forged);
      expect(reply.status, forged).toBe(403);
      expect(reply.body).toEqual({ detail: "Invalid file signature" });
    }
  });

  it("refuses another run's signature for a file of the same name with 403", async () => {
    const first = await runWithFiles();
    const second = await runWithFiles();
    const search = new URL(urlOf(second.files, "report.csv")).search;
    const reply = await open(`/v1/run/${first.runId}/files/report.csv${search}`);
    expect(reply.status).toBe(403);
  });

  it("serves an address until it expires and refuses it with 403 from then on", async () => {
    const { files } = await runWithFiles();
    const url = urlOf(files, "report.csv");
    now = START + (TTL_SECONDS - 1) * 1000;
    expect((await open(url)).status).toBe(200);
    now = START + TTL_SECONDS * 1000;
    const reply = await open(url);
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({ detail: "File link expired" });
  });

  it("answers 422 without a signature, as the video address does", async () => {
    const { files } = await runWithFiles();
    const reply = await open(withQuery(urlOf(files, "report.csv"), { signature: undefined }));
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      detail: [{ loc: ["query", "signature"], msg: "Field required", type: "missing" }],
    });
  });

  it("answers 404 for a name the run does not have, even signed, and once the bytes are gone", async () => {
    const { runId, files } = await runWithFiles();
    // A file on disk the index does not know is not served either.
    writeFileSync(join(server.fileStore.filesDirOf(runId), "stray.txt"), "not indexed");
    for (const name of ["missing.csv", "stray.txt"]) {
      const reply = await open(server.fileUrlFor(runId, name));
      expect(reply.status, name).toBe(404);
      expect(reply.body).toEqual({ detail: "Run file not found" });
    }
    rmSync(join(server.fileStore.filesDirOf(runId), "data.bin"));
    const gone = await open(urlOf(files, "data.bin"));
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ detail: "Run file not found" });
    expect(gone.headers.get("content-disposition")).toBeNull();
  });

  it("never reads outside the run's folder: hostile names are a 404, signed or not", async () => {
    const { runId, files } = await runWithFiles();
    // A file beside the run's folder, which `..` would reach.
    writeFileSync(join(server.fileStore.dir, "secret.txt"), "outside the run's folder");
    const search = new URL(urlOf(files, "report.csv")).search;
    const hostile = [
      "..",
      ".",
      "%2e%2e",
      "%2E%2E",
      "..%2Fsecret.txt",
      "%2e%2e%2fsecret.txt",
      "a%2Fb",
      "..%5Csecret.txt",
      "report.csv%00",
      "%00",
      ".hidden",
      "r%C3%A9sum%C3%A9.csv",
      "x".repeat(121),
      `${"y".repeat(300)}.csv`,
    ];
    for (const encoded of hostile) {
      const name = decodeURIComponent(encoded);
      const signed = new URL(server.fileUrlFor(runId, name)).search;
      for (const query of [search, signed]) {
        const reply = await rawRequest(
          server.origin,
          "GET",
          `/v1/run/${runId}/files/${encoded}${query}`,
        );
        expect(reply.status, `${encoded}${query === search ? "" : " (signed)"}`).toBe(404);
        expect(reply.body).not.toContain("outside");
      }
    }
    // A separator written plainly is another path, which no operation has.
    const raw = await rawRequest(server.origin, "GET", `/v1/run/${runId}/files/a/b${search}`);
    expect(raw.status).toBe(404);
  });
});

describe("owners", () => {
  it("keeps another owner's run files unlisted; only a signed address serves them", async () => {
    const bobRun = await newRun("bob");
    await server.putRunFile(bobRun, "bob.csv", CSV);
    expect((await get(`/v1/run/${bobRun}/files`)).status).toBe(404);
    const [file] = await listed(bobRun, bob);
    expect((await open((file as Listed).url)).bytes).toEqual(CSV);
  });

  it("keeps the run itself unchanged by its files", async () => {
    const { runId } = await runWithFiles();
    const run = (await get(`/v1/run/${runId}`)).body as RunSession;
    expect(run.state).toBeNull();
    expect(run.inputs).toEqual({});
  });
});
