import { existsSync, readdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunSession } from "../src/domain/api-types.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call, skillRecord } from "./support/http.js";

/**
 * `DELETE /v1/file/{id}` (docs/api.md "Files"): an owner removes an upload and its bytes before
 * retention would, unless a run that has not ended names it, which the database is asked: on
 * both flavours.
 */

const SKILL = "skill_with_file";

let server: TestServer;
let alice: string;
let bob: string;

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.keyFor("alice");
  bob = await server.keyFor("bob");
  await server.importSkills("alice", [
    skillRecord(SKILL, "With a file", [
      { id: "in_report", json_key: "report", data_type: "file", required: true },
    ]),
  ]);
});

afterAll(async () => {
  await server?.close();
});

/** An upload of `key`'s holding `text`, by POST /v1/file. */
async function upload(text: string, filename: string, key = alice): Promise<{ id: string }> {
  const form = new FormData();
  form.append("file", new Blob([text]), filename);
  const response = await fetch(`${server.baseUrl}/file`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { id: string };
}

/** What is in the uploads folder. */
function uploadsOnDisk(): string[] {
  return existsSync(server.fileStore.uploadsDir) ? readdirSync(server.fileStore.uploadsDir) : [];
}

describe("DELETE /v1/file/{id}", () => {
  const remove = (id: string, key = alice) =>
    call(server.origin, "DELETE", `/v1/file/${encodeURIComponent(id)}`, { key });

  it("deletes the caller's upload and its bytes; a second delete is a 404", async () => {
    const file = await upload("to go", "gone.txt");
    expect(uploadsOnDisk()).toContain(file.id);
    const deleted = await remove(file.id);
    expect([deleted.status, deleted.text]).toEqual([204, ""]);
    expect(uploadsOnDisk()).not.toContain(file.id);
    expect(await remove(file.id)).toMatchObject({
      status: 404,
      body: { detail: "File not found" },
    });
    // A run can no longer name it.
    const run = await call(server.origin, "POST", "/v1/run/", {
      key: alice,
      json: { skill_id: SKILL, inputs: { report: file.id } },
    });
    expect(run.status).toBe(422);
  });

  it("is a 404 for another owner's upload, which stays", async () => {
    const file = await upload("alice's", "mine.txt");
    expect(await remove(file.id, bob)).toMatchObject({
      status: 404,
      body: { detail: "File not found" },
    });
    expect(uploadsOnDisk()).toContain(file.id);
  });

  it("keeps a file a run that has not ended names (409 naming the run), and deletes it once the run ended", async () => {
    const file = await upload("needed", "needed.txt");
    const started = await call(server.origin, "POST", "/v1/run/", {
      key: alice,
      json: { skill_id: SKILL, inputs: { report: file.id } },
    });
    const run = started.body as RunSession;
    expect(await remove(file.id)).toMatchObject({
      status: 409,
      body: { detail: `File is used by runs that have not ended: ${run.id}` },
    });
    expect(uploadsOnDisk()).toContain(file.id);
    await call(server.origin, "POST", `/v1/run/${run.id}/cancel`, { key: alice });
    expect((await remove(file.id)).status).toBe(204);
  });

  it("answers an id no upload can have with a 404, and without a key with a 401", async () => {
    for (const id of ["file_nope", "../uploads", "x".repeat(128)]) {
      expect(await remove(id)).toMatchObject({ status: 404, body: { detail: "File not found" } });
    }
    expect((await remove("x".repeat(129))).status).toBe(422);
    expect((await call(server.origin, "DELETE", "/v1/file/file_nope")).status).toBe(401);
  });
});
