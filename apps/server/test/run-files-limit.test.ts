import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { RunClient } from "./support/runs.js";

// RUN_FILES_MAX_BYTES bounds what one run keeps on disk, all its files together: a run that
// would pass it ends in reset naming the limit, and the file that would have passed it is gone.

const LIMIT = 64 * 1024;
let server: TestServer;
let site: Server;
let base = "";
let alice: RunClient;

beforeAll(async () => {
  site = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/octet-stream" });
    response.end(Buffer.alloc(40 * 1024, 1));
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  server = await startTestServer({
    worker: { concurrency: 1 },
    env: { RUN_FILES_MAX_BYTES: String(LIMIT) },
  });
  alice = new RunClient(server.origin, await server.keyFor("alice"));
  await server.importSkillYaml(
    "alice",
    `id: three_saves
name: Three saves
inputs:
  - { json_key: url, data_type: string }
steps:
  - http: { url: "{{ inputs.url }}", save_to_file: first.bin }
  - http: { url: "{{ inputs.url }}", save_to_file: second.bin }
  - log: never reached
`,
  );
});

afterAll(async () => {
  await server?.close();
  site?.close();
});

describe("RUN_FILES_MAX_BYTES", () => {
  it("ends a run whose files would pass it in reset, naming the limit, and keeps what fit", async () => {
    const run = await alice.start("three_saves", { url: `${base}/body` });
    const ended = await alice.ended(run.id);
    expect(ended.state).toBe("reset");
    expect(ended.data).toMatchObject({
      error: {
        step: "step 2 (http)",
        message: `GET ${base}/body failed: second.bin would take the run's files over their limit of 64 KB (${LIMIT} bytes) for all of a run's files; nothing of it was kept`,
      },
    });
    const files = await fetch(`${server.baseUrl}/run/${run.id}/files`, {
      headers: { authorization: `Bearer ${alice.key}` },
    });
    const listed = (await files.json()) as { name: string; bytes: number }[];
    expect(listed.map((file) => [file.name, file.bytes])).toEqual([["first.bin", 40 * 1024]]);
  });
});
