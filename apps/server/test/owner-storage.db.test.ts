import { readdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Retention } from "../src/files/retention.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { RunClient, typesOf } from "./support/runs.js";
import { declaredResponse, operations } from "./support/spec.js";

/**
 * OWNER_STORAGE_MAX_BYTES: the bytes an owner keeps (uploads, run files, videos) are counted in
 * the database, in the transaction of the row that records them; past the quota an upload is a
 * 413 and a run's file is not kept (the run ends in reset naming the quota), and what DELETE
 * /v1/file/{id} or retention removes is free again.
 */

const MB = 1024 * 1024;
const QUOTA = 10 * MB;
const DAY = 24 * 60 * 60 * 1000;
const QUOTA_413 = {
  detail:
    "Storage quota exceeded: this file would take the files you keep over your quota of 10 MB (10485760 bytes); delete files or wait for retention",
};
// The body above is the spec's example of the 413, byte for byte (the quota here is the example's).
const uploadFile = operations().find((op) => op.operationId === "uploadFile");
const QUOTA_413_EXAMPLE =
  uploadFile &&
  declaredResponse(uploadFile, "413").content["application/json"]?.examples?.storage_quota?.value;

// Answers /<n> with n MB; /hold never answers.
let bodies: Server;
let bodiesOrigin: string;

const SAVER = `
id: skill_saver
name: Saver
inputs:
  - { json_key: origin, data_type: string }
steps:
  - id: first
    http: { url: "{{ inputs.origin }}/3", save_to_file: first.bin }
  - id: second
    http: { url: "{{ inputs.origin }}/3", save_to_file: second.bin }
  - set: { after: 1 }
`;

// Its step after the file waits for an answer that never comes (for 5 minutes): only the
// refusal of the file ends the run before then.
const HOLDER = `
id: skill_holder
name: Holder
inputs:
  - { json_key: origin, data_type: string }
steps:
  - id: big
    http: { url: "{{ inputs.origin }}/3", save_to_file: big.bin }
  - id: hold
    http: { url: "{{ inputs.origin }}/hold", timeout: 5m }
  - set: { after: 1 }
`;

// An upload given as a file input is copied into the run's files: counted again.
const READER = `
id: skill_reader
name: Reader
inputs:
  - { json_key: report, data_type: file }
steps:
  - set: { read: 1 }
`;

let server: TestServer;
let key: string;
let alice: RunClient;

beforeAll(async () => {
  bodies = createServer((request, response) => {
    if (request.url === "/hold") return;
    const size = Number((request.url ?? "/0").slice(1)) * MB;
    response.writeHead(200, { "content-type": "application/octet-stream" }).end(Buffer.alloc(size));
  });
  await new Promise<void>((resolve) => bodies.listen(0, "127.0.0.1", resolve));
  bodiesOrigin = `http://127.0.0.1:${(bodies.address() as AddressInfo).port}`;
  server = await startTestServer({
    worker: { concurrency: 1 },
    env: { OWNER_STORAGE_MAX_BYTES: String(QUOTA) },
  });
  await server.importSkillYaml("alice", SAVER, HOLDER, READER);
  key = await server.keyFor("alice");
  alice = new RunClient(server.origin, key);
});

afterAll(async () => {
  await server?.close();
  bodies?.closeAllConnections();
  await new Promise((resolve) => bodies?.close(resolve));
});

async function upload(megabytes: number): Promise<{ status: number; body: unknown }> {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(megabytes * MB)]), "data.bin");
  const response = await fetch(`${server.origin}/v1/file`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  return { status: response.status, body: await response.json() };
}

const used = () => server.repos.storage.used("alice");
/** A retention sweep at `at`, keeping a day: it removes all that is older. */
const sweep = (at: number) =>
  new Retention({
    retention: server.repos.retention,
    runFiles: server.repos.runFiles,
    uploads: server.repos.uploads,
    fileStore: server.fileStore,
    clock: { now: () => new Date(at) },
    logger: pino({ level: "silent" }),
    days: 1,
  }).sweep();
const uploadsOnDisk = () => readdirSync(server.fileStore.uploadsDir);

describe("uploads past the owner's quota", () => {
  it("are a 413 naming the quota, keep nothing, and fit again once a file is deleted", async () => {
    const first = await upload(6);
    expect(first.status).toBe(200);
    expect(await used()).toBe(6 * MB);

    const over = await upload(6);
    expect(over).toEqual({ status: 413, body: QUOTA_413 });
    expect(QUOTA_413_EXAMPLE).toEqual(QUOTA_413);
    // Neither a row nor bytes: the count and the folder hold the first upload alone.
    expect(await used()).toBe(6 * MB);
    expect(uploadsOnDisk()).toEqual([(first.body as { id: string }).id]);

    const id = (first.body as { id: string }).id;
    expect((await call(server.origin, "DELETE", `/v1/file/${id}`, { key })).status).toBe(204);
    expect(await used()).toBe(0);
    expect(uploadsOnDisk()).toEqual([]);
    expect((await upload(6)).status).toBe(200);
  });

  it("never pass it together when sent at once", async () => {
    const before = await used();
    const replies = await Promise.all([upload(3), upload(3), upload(3)]);
    const kept = replies.filter((reply) => reply.status === 200).length;
    // 4 MB are free: one 3 MB upload fits, the others are refused, however they interleave.
    expect(kept).toBe(Math.floor((QUOTA - before) / (3 * MB)));
    expect(replies.filter((reply) => reply.status === 413)).toHaveLength(3 - kept);
    expect(await used()).toBe(before + kept * 3 * MB);
    expect(uploadsOnDisk()).toHaveLength(1 + kept);
  });
});

describe("a run whose files would pass the owner's quota", () => {
  it("ends in reset naming the quota, its refused file gone from disk, and retention frees the rest", async () => {
    // What the uploads above kept is freed by retention (no run names them).
    await sweep(Date.now() + 2 * DAY);
    expect(await used()).toBe(0);
    expect((await upload(6)).status).toBe(200);

    // 6 MB kept, 4 MB free: the first 3 MB file fits, the second does not.
    const { id } = await alice.start("skill_saver", { origin: bodiesOrigin });
    const ended = await alice.ended(id);
    expect(ended.state).toBe("reset");
    expect((ended.data as { error: { message: string } }).error.message).toBe(
      "second.bin would take the owner's stored files over their quota of 10 MB (10485760 bytes, OWNER_STORAGE_MAX_BYTES); it was not kept",
    );
    expect(typesOf(await alice.events(id)).at(-1)).toBe("run_failed");
    const files = await server.repos.runFiles.list("alice", id);
    expect(files?.map((file) => file.name)).toEqual(["first.bin"]);
    expect(readdirSync(server.fileStore.filesDirOf(id))).toEqual(["first.bin"]);
    expect(await used()).toBe(9 * MB);

    // Retention removes the run's files and the upload: the owner keeps nothing.
    await sweep(Date.now() + 2 * DAY);
    expect(await used()).toBe(0);
    expect((await upload(9)).status).toBe(200);
  });

  it("is stopped when the file is refused, not after its later steps", async () => {
    await sweep(Date.now() + 2 * DAY);
    expect((await upload(9)).status).toBe(200);
    // 9 MB kept, 1 MB free: the 3 MB file is refused while the next step waits.
    const { id } = await alice.start("skill_holder", { origin: bodiesOrigin });
    const ended = await alice.ended(id, 30_000);
    expect(ended.state).toBe("reset");
    // Nothing after the held step ran; which step the stop caught is the engine's timing.
    expect(Object.keys(ended.data ?? {})).toEqual(["error"]);
    expect((ended.data as { error: { message: string } }).error.message).toBe(
      "big.bin would take the owner's stored files over their quota of 10 MB (10485760 bytes, OWNER_STORAGE_MAX_BYTES); it was not kept",
    );
    expect(typesOf(await alice.events(id)).at(-1)).toBe("run_failed");
    expect(await server.repos.runFiles.list("alice", id)).toEqual([]);
    expect(readdirSync(server.fileStore.filesDirOf(id))).toEqual([]);
    expect(await used()).toBe(9 * MB);
  });

  it("does not start when its file input's copy would pass the quota", async () => {
    await sweep(Date.now() + 2 * DAY);
    const report = await upload(6);
    expect(report.status).toBe(200);
    // The 6 MB upload is copied into the run's files: 12 MB, over the 10 MB quota.
    const { id } = await alice.start("skill_reader", {
      report: (report.body as { id: string }).id,
    });
    const ended = await alice.ended(id, 30_000);
    expect(ended.state).toBe("reset");
    expect(ended.data).not.toHaveProperty("read");
    const types = typesOf(await alice.events(id));
    expect(types).not.toContain("step_started");
    expect(types.at(-1)).toBe("run_failed");
    expect((ended.data as { error: { message: string } }).error.message).toBe(
      "data.bin would take the owner's stored files over their quota of 10 MB (10485760 bytes, OWNER_STORAGE_MAX_BYTES); it was not kept",
    );
    expect(await server.repos.runFiles.list("alice", id)).toEqual([]);
    expect(await used()).toBe(6 * MB);
  });
});
