import { createHash } from "node:crypto";
import { once } from "node:events";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunSession } from "../src/domain/api-types.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { RunClient } from "./support/runs.js";

/**
 * `file` inputs at run time (docs/api.md "Files"): when a worker starts the run, an uploaded file
 * is copied into the run's files and a URL is fetched into them through the run's network
 * policy; the steps see `{file, name, bytes, content_type, sha256}`, the run's inputs keep what
 * the client sent, and an input that cannot be had fails the run at its start, naming it.
 */

const LIMIT = 64 * 1024;

const READ_REPORT = `
id: skill_read_report
name: Read a report
inputs:
  - { json_key: report, data_type: file }
  - { json_key: other, data_type: file, required: false }
steps:
  - set: { f: "{{ inputs.report }}", g: "{{ inputs.other }}" }
`;

const SLOW_REPORT = `
id: skill_slow_report
name: Read a report, with a short time limit
timeout: 1s
inputs:
  - { json_key: report, data_type: file }
steps:
  - set: { f: "{{ inputs.report }}" }
`;

const READ_CSV = `
id: skill_read_csv
name: Read a CSV report
inputs:
  - { json_key: report, data_type: file, accept: [text/csv, text/plain] }
  - { json_key: table, data_type: file, required: false, accept: [text/csv] }
steps:
  - read_file: { file: "{{ inputs.report }}", as: csv, save_as: rows }
`;

const CSV = new TextEncoder().encode("number,amount\nINV-1,120.50\n");

/** The files the fixture site serves, by path. */
const SITE: Record<string, (res: ServerResponse) => void> = {
  "/exports/monthly%20report.csv": (res) => {
    res.writeHead(200, { "content-type": "text/csv" });
    res.end(CSV);
  },
  "/export": (res) => {
    res.writeHead(200, {
      "content-type": "application/pdf",
      "content-disposition":
        "attachment; filename=\"invoice 7.pdf\"; filename*=UTF-8''facture%20n%C2%B07.pdf",
    });
    res.end(Buffer.from("%PDF-1.4 fake"));
  },
  // What an export behind a login answers to a client without the session: the login page.
  "/private/export.csv": (res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<!doctype html><title>Sign in</title><form>…</form>");
  },
  "/exports/data.json": (res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end("[]");
  },
  "/moved": (res) => {
    res.writeHead(302, { location: "/exports/monthly%20report.csv" });
    res.end();
  },
  "/huge": (res) => {
    res.writeHead(200, { "content-type": "application/octet-stream" });
    // No Content-Length: the limit is found while reading.
    res.write(Buffer.alloc(LIMIT));
    res.end(Buffer.alloc(10));
  },
  "/hang": () => {
    // Never answers: the run's time limit or cancel must end the wait.
  },
};

let site: Server;
let siteUrl: string;
let server: TestServer;
let alice: RunClient;

beforeAll(async () => {
  site = createServer((req, res) => {
    const serve = SITE[req.url ?? ""];
    if (serve) serve(res);
    else {
      res.writeHead(404);
      res.end("not here");
    }
  });
  site.listen(0, "127.0.0.1");
  await once(site, "listening");
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  server = await startTestServer({
    worker: { concurrency: 2 },
    env: { FILE_MAX_BYTES: String(LIMIT) },
  });
  await server.importSkillYaml("alice", READ_REPORT, SLOW_REPORT, READ_CSV);
  alice = new RunClient(server.origin, await server.keyFor("alice"));
});

afterAll(async () => {
  await server?.close();
  site?.closeAllConnections();
  site?.close();
});

interface FileValue {
  file: string;
  name: string;
  bytes: number;
  content_type: string;
  sha256: string;
}

async function upload(bytes: Uint8Array, filename: string, type: string): Promise<string> {
  const form = new FormData();
  form.append("file", new Blob([bytes], { type }), filename);
  const response = await fetch(`${server.baseUrl}/file`, {
    method: "POST",
    headers: { authorization: `Bearer ${alice.key}` },
    body: form,
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { id: string }).id;
}

async function runToEnd(
  inputs: Record<string, unknown>,
  skill = "skill_read_report",
): Promise<RunSession> {
  const { id } = await alice.start(skill, inputs);
  return alice.ended(id);
}

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

async function filesOf(runId: string): Promise<{ name: string; url: string }[]> {
  const reply = await call(server.origin, "GET", `/v1/run/${runId}/files`, { key: alice.key });
  expect(reply.status, reply.text).toBe(200);
  return reply.body as { name: string; url: string }[];
}

describe("an uploaded file as a file input", () => {
  it("is copied into the run's files; the step sees the file object, the run keeps the id", async () => {
    const id = await upload(CSV, "report.csv", "text/csv");
    const run = await runToEnd({ report: id });
    expect(run.state, JSON.stringify(run.data)).toBe("finish");
    const report: FileValue = {
      file: "report.csv",
      name: "report.csv",
      bytes: CSV.length,
      content_type: "text/csv",
      sha256: sha256(CSV),
    };
    expect(run.data).toEqual({ f: report, g: null });
    expect(run.inputs).toEqual({ report: id });
    const [listed] = await filesOf(run.id);
    expect(listed).toMatchObject({ name: "report.csv" });
    const served = await call(server.origin, "GET", (listed as { url: string }).url);
    expect(served.bytes).toEqual(CSV);
  });

  it("gives two inputs of the same name two run files", async () => {
    const first = await upload(CSV, "report.csv", "text/csv");
    const second = await upload(new TextEncoder().encode("other"), "report.csv", "text/csv");
    const run = await runToEnd({ report: first, other: second });
    const data = run.data as { f: FileValue; g: FileValue };
    expect([data.f.file, data.g.file]).toEqual(["report.csv", "report-2.csv"]);
    expect([data.f.name, data.g.name]).toEqual(["report.csv", "report.csv"]);
    expect((await filesOf(run.id)).map((file) => file.name).sort()).toEqual([
      "report-2.csv",
      "report.csv",
    ]);
  });

  it("fails the run at its start, naming the input, when the upload is gone", async () => {
    // Queued while the upload existed (POST /v1/run/ checks it), removed before the claim, as
    // retention might: written straight into the queue to leave the worker no head start.
    const gone = "file_00000000-0000-7000-8000-000000000000";
    const queued = await server.repos.runs.create({
      owner: "alice",
      skill: { id: "skill_read_report", name: "Read a report" },
      inputs: { report: gone },
    });
    const run = await alice.ended(queued.id);
    expect(run.state).toBe("reset");
    expect(run.data).toEqual({
      error: {
        step: null,
        message: `file input "report": the uploaded file ${gone} no longer exists`,
      },
    });
  });
});

describe("a URL as a file input", () => {
  it("is fetched into the run's files, named after its path, typed as the response says", async () => {
    const url = `${siteUrl}/exports/monthly%20report.csv`;
    const run = await runToEnd({ report: url });
    expect(run.state, JSON.stringify(run.data)).toBe("finish");
    expect((run.data as { f: FileValue }).f).toEqual({
      file: "monthly_report.csv",
      name: "monthly report.csv",
      bytes: CSV.length,
      content_type: "text/csv",
      sha256: sha256(CSV),
    });
    expect(run.inputs).toEqual({ report: url });
    const [listed] = await filesOf(run.id);
    expect((await call(server.origin, "GET", (listed as { url: string }).url)).bytes).toEqual(CSV);
  });

  it("takes the name the response's Content-Disposition gives, and follows redirects", async () => {
    const run = await runToEnd({ report: `${siteUrl}/export`, other: `${siteUrl}/moved` });
    const data = run.data as { f: FileValue; g: FileValue };
    expect(data.f).toMatchObject({
      file: "facture_n_7.pdf",
      name: "facture n°7.pdf",
      content_type: "application/pdf",
    });
    expect(data.g).toMatchObject({ file: "monthly_report.csv", bytes: CSV.length });
  });

  it("fails the run at its start on an error status or a body over FILE_MAX_BYTES", async () => {
    const missing = await runToEnd({ report: `${siteUrl}/missing.csv` });
    expect(missing.state).toBe("reset");
    expect(missing.data).toEqual({
      error: {
        step: null,
        message: `file input "report": GET ${siteUrl}/missing.csv answered HTTP 404`,
      },
    });
    const huge = await runToEnd({ report: `${siteUrl}/huge` });
    expect(huge.state).toBe("reset");
    expect((huge.data as { error: { message: string } }).error.message).toBe(
      `file input "report": GET ${siteUrl}/huge: the file is more than 64 KB, over the limit of 64 KB (${LIMIT} bytes)`,
    );
    expect(await filesOf(huge.id)).toEqual([]);
  });

  it("counts the fetch in the run's time limit", async () => {
    const run = await runToEnd({ report: `${siteUrl}/hang` }, "skill_slow_report");
    expect(run.state).toBe("timeout");
    expect((run.data as { error: { message: string } }).error.message).toBe(
      "the run exceeded its time limit of 1s",
    );
  });

  it("stops fetching when the run is cancelled", async () => {
    const { id } = await alice.start("skill_read_report", { report: `${siteUrl}/hang` });
    await alice.waitFor(id, (run) => run.state === "play");
    expect(await alice.cancel(id)).toBe("cancel");
    await expect
      .poll(async () => (await alice.events(id)).map((event) => event.type).at(-1), {
        timeout: 5000,
      })
      .toBe("run_cancelled");
  });
});

describe("a file input's accept", () => {
  it("takes a file of a listed type and read_file reads it into rows", async () => {
    const run = await runToEnd(
      { report: `${siteUrl}/exports/monthly%20report.csv` },
      "skill_read_csv",
    );
    expect(run.state, JSON.stringify(run.data)).toBe("finish");
    expect(run.data).toEqual({ rows: [{ number: "INV-1", amount: "120.50" }] });
    // A parameter does not matter; text/plain is listed too.
    const id = await upload(CSV, "report.csv", "text/plain; charset=utf-8");
    const typed = await runToEnd({ report: id }, "skill_read_csv");
    expect(typed.state, JSON.stringify(typed.data)).toBe("finish");
  });

  it("fails the run at its start when a URL answers another type, a login page, keeping nothing", async () => {
    const run = await runToEnd({ report: `${siteUrl}/private/export.csv` }, "skill_read_csv");
    expect(run.state).toBe("reset");
    expect(run.data).toEqual({
      error: {
        step: null,
        message: `file input "report": GET ${siteUrl}/private/export.csv is text/html, not a type the input accepts (text/csv, text/plain)`,
      },
    });
    expect(await filesOf(run.id)).toEqual([]);
    const json = await runToEnd(
      { report: `${siteUrl}/exports/monthly%20report.csv`, table: `${siteUrl}/exports/data.json` },
      "skill_read_csv",
    );
    expect((json.data as { error: { message: string } }).error.message).toBe(
      `file input "table": GET ${siteUrl}/exports/data.json is application/json, not a type the input accepts (text/csv)`,
    );
  });

  it("refuses an upload of another type at POST /run/ with a 422 at the input, starting nothing", async () => {
    const pdf = await upload(Buffer.from("%PDF-1.4"), "report.pdf", "application/pdf");
    const csv = await upload(CSV, "report.csv", "text/csv");
    const count = async () =>
      (
        (await call(server.origin, "GET", "/v1/run/list?limit=1000", { key: alice.key }))
          .body as unknown[]
      ).length;
    const before = await count();
    const reply = await call(server.origin, "POST", "/v1/run/", {
      key: alice.key,
      json: { skill_id: "skill_read_csv", inputs: { report: csv, table: pdf } },
    });
    expect([reply.status, reply.body]).toEqual([
      422,
      {
        detail: [
          {
            loc: ["body", "inputs", "table"],
            msg: `Value error, the uploaded file ${pdf} is application/pdf, not a type this input accepts (text/csv)`,
            type: "value_error",
          },
        ],
      },
    ]);
    expect(await count()).toBe(before);
  });

  it("is shown with the skill's inputs, and only where declared", async () => {
    const reply = await call(server.origin, "GET", "/v1/skill/skill_read_csv", { key: alice.key });
    expect(reply.status).toBe(200);
    expect((reply.body as { inputs: unknown[] }).inputs).toEqual([
      {
        id: "input_report",
        json_key: "report",
        data_type: "file",
        required: true,
        accept: ["text/csv", "text/plain"],
      },
      {
        id: "input_table",
        json_key: "table",
        data_type: "file",
        required: false,
        accept: ["text/csv"],
      },
    ]);
  });
});

describe("the network policy", () => {
  it("refuses a private address under the default policy, failing the run with the guard's reason", async () => {
    const guarded = await startTestServer({
      worker: { concurrency: 1 },
      allowPrivateNetworks: false,
    });
    try {
      await guarded.importSkillYaml("alice", READ_REPORT);
      const client = new RunClient(guarded.origin, await guarded.keyFor("alice"));
      const url = `${siteUrl}/exports/monthly%20report.csv`;
      const { id } = await client.start("skill_read_report", { report: url });
      const run = await client.ended(id);
      expect(run.state).toBe("reset");
      const message = (run.data as { error: { message: string } }).error.message;
      expect(message).toMatch(
        new RegExp(
          `^file input "report": GET ${url.replace(/[.?]/g, "\\$&")} refused: 127\\.0\\.0\\.1 is a loopback address`,
        ),
      );
      expect(message).toContain("ALLOW_PRIVATE_NETWORKS");
    } finally {
      await guarded.close();
    }
  });
});
