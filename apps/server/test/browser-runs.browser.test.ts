import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listProcesses } from "@skillrun/engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  formatAmount,
  INVOICES,
  invoicesCsv,
  PAGE_COUNT,
} from "../src/demo/backoffice-invoice-data.js";
import { DEMO_TOTP_KEY } from "../src/demo/backoffice-login.js";
import { DEMO_OTP_SECRET } from "../src/demo/prepare-demo.js";
import type { RunEvent, RunSession } from "../src/domain/api-types.js";
import { paths } from "../src/paths.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { RunClient, typesOf } from "./support/runs.js";

/**
 * Browser skills through the API and the in-process worker, against the demo shop the server
 * serves itself: real Chromium, real ffmpeg, the video checked with ffprobe.
 */

const DEMO_SKILL = readFileSync(join(paths.skills, "demo-shop-order.yaml"), "utf8");
const BACKOFFICE_SKILLS = [
  "backoffice-login.yaml",
  "backoffice-invoices.yaml",
  "backoffice-export.yaml",
].map((file) => readFileSync(join(paths.skills, file), "utf8"));

// Ends in reset when its worker stops, as a skill that says so does (the default, resume, goes on
// from its checkpoint: test/durable-browser.browser.db.test.ts).
const PATIENT = `
id: skill_patient
name: Patient
on_worker_loss: reset
inputs:
  - { json_key: shop_url, data_type: string }
steps:
  - goto: "{{ inputs.shop_url }}"
  - fill: { selector: "#name", value: Grace }
  - id: nap
    wait: 30s
`;

const WRONG_SELECTOR = `
id: skill_wrong_selector
name: Wrong selector
inputs:
  - { json_key: shop_url, data_type: string }
steps:
  - goto: "{{ inputs.shop_url }}"
  - extract: { selector: "#products .name", save_as: first }
  - id: checkout
    click: { selector: "#checkout-button", }
    timeout: 2s
`;

// Its limit must fall in the nap: long enough for its browser to start and its page to load on a
// slow machine whose cores other test files share.
const HURRIED = `
id: skill_hurried
name: Hurried
timeout: 10s
inputs:
  - { json_key: shop_url, data_type: string }
steps:
  - goto: "{{ inputs.shop_url }}"
  - id: nap
    wait: 30s
`;

let server: TestServer;
let alice: RunClient;
let shopUrl: string;
let scratch: string;

beforeAll(async () => {
  server = await startTestServer({ worker: { concurrency: 2 } });
  await server.importSkillYaml("alice", DEMO_SKILL, PATIENT, WRONG_SELECTOR, HURRIED);
  await server.importSkillYaml("alice", ...BACKOFFICE_SKILLS);
  // The back office's second factor: the login skill reads its key as the owner's secret.
  await server.repos.secrets.put("alice", DEMO_OTP_SECRET, DEMO_TOTP_KEY);
  alice = new RunClient(server.origin, await server.keyFor("alice"));
  shopUrl = `${server.origin}/demo/`;
  scratch = mkdtempSync(join(tmpdir(), "skillrun-videos-"));
});

afterAll(async () => {
  await server?.close();
  rmSync(scratch, { recursive: true, force: true });
});

interface Probe {
  width: number;
  height: number;
  frames: number;
  durationS: number;
}

/** Downloads the run's video through its signed address and reads it with ffprobe. */
async function probeVideo(run: RunSession): Promise<Probe> {
  expect(run.video_url).toMatch(/\/video\?expires=\d+&signature=/);
  const reply = await call(server.origin, "GET", run.video_url as string);
  expect(reply.status).toBe(200);
  expect(reply.headers.get("content-type")).toBe("video/webm");
  const file = join(scratch, `${run.id}.webm`);
  writeFileSync(file, reply.bytes);
  const out = execFileSync(
    "ffprobe",
    [
      ...["-v", "error", "-count_frames", "-select_streams", "v:0"],
      ...["-show_entries", "stream=width,height,nb_read_frames:format=duration", "-of", "json"],
      file,
    ],
    { encoding: "utf8" },
  );
  const probe = JSON.parse(out) as {
    streams: { width: number; height: number; nb_read_frames: string }[];
    format: { duration: string };
  };
  const [stream] = probe.streams;
  if (stream === undefined) throw new Error(`no video stream in ${out}`);
  return {
    width: stream.width,
    height: stream.height,
    frames: Number(stream.nb_read_frames),
    durationS: Number(probe.format.duration),
  };
}

/** Waits until the run's video is in place (a cancelled run's is finished just after it ends). */
function withVideo(runId: string): Promise<RunSession> {
  return alice.waitFor(runId, (run) => typeof run.video_url === "string");
}

/** Waits until the run has started its step `nap` (the browser is open and the page loaded). */
async function untilNap(client: RunClient, runId: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  const napping = (events: RunEvent[]) =>
    events.some((event) => event.type === "step_started" && event.step?.id === "nap");
  while (!napping(await client.events(runId))) {
    if (Date.now() > deadline) throw new Error("the run never reached its wait");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Chromium processes of the given run (each is tagged with the run id) that can still run code:
 * one killed or exiting is gone for the run, though the kernel may still be freeing its memory
 * (docs/decisions/0071).
 */
function chromiumProcessesOf(runId: string): number {
  return listProcesses().filter((entry) => entry.cmdline.includes(runId)).length;
}

describe("the browser example skill against the server's demo shop", () => {
  it("fills the form, orders, extracts the receipt into data, and leaves a valid video", async () => {
    const launchesBefore = await browserLaunches();
    const { id } = await alice.start("skill_demo_shop_order", { shop_url: shopUrl, seats: 2 });
    const run = await alice.ended(id, 60_000);
    expect(run.state, JSON.stringify(run.data)).toBe("finish");
    const data = run.data as Record<string, unknown>;
    expect(data.plans).toEqual(["Basic plan", "Pro plan", "Team plan"]);
    expect(data.total).toBe("58.00");
    expect(data.order_number).toMatch(/^SR-\d{6}$/);
    expect(data.receipt).toMatchObject({ file: expect.stringMatching(/\.png$/), width: 1280 });

    const screenshots = readdirSync(server.fileStore.filesDirOf(id));
    expect(screenshots).toEqual([(data.receipt as { file: string }).file]);
    // The screenshot is a run file: listed once the run has ended, served with its exact bytes.
    const listed = await call(server.origin, "GET", `/v1/run/${id}/files`, { key: alice.key });
    const [shot] = listed.body as { name: string; content_type: string; url: string }[];
    expect(listed.body).toHaveLength(1);
    expect(shot).toMatchObject({ name: screenshots[0], content_type: "image/png" });
    const served = await call(server.origin, "GET", (shot as { url: string }).url);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(served.bytes).toEqual(
      new Uint8Array(readFileSync(join(server.fileStore.filesDirOf(id), screenshots[0] as string))),
    );

    const events = await alice.events(id);
    const recorded = events.find((event) => event.type === "video_recorded");
    expect(recorded?.data).toMatchObject({ width: 1280, height: 720 });
    expect(typesOf(events).at(-1)).toBe("run_finished");

    const video = await probeVideo(run);
    expect(video).toMatchObject({ width: 1280, height: 720 });
    // The browser was open from the first step to the end of the run, the final 1 s wait included.
    const runSeconds = (Date.parse(run.end_time as string) - Date.parse(run.start_time)) / 1000;
    expect(video.durationS).toBeGreaterThan(1);
    expect(video.durationS).toBeLessThanOrEqual(runSeconds + 0.5);
    // A frame each time the page changed, never more than the recorder's 10 a second, and none
    // while the receipt holds still through the final 1 s wait but the last again at the end.
    expect(video.frames).toBeGreaterThanOrEqual(3);
    expect(video.frames).toBeLessThanOrEqual((video.durationS - 1) * 10 + 3);
    expect(recorded?.data).toMatchObject({ frames: video.frames });
    expect(chromiumProcessesOf(id)).toBe(0);
    // Its browser's start is in the metrics (skillrun_browser_launch_seconds).
    expect(await browserLaunches()).toBe(launchesBefore + 1);
  });
});

/** How many browser launches the server's metrics have counted. */
async function browserLaunches(): Promise<number> {
  const { text } = await call(server.origin, "GET", "/metrics");
  const line = /^skillrun_browser_launch_seconds_count (\S+)$/m.exec(text);
  return Number(line?.[1]);
}

describe("the back office example skills", () => {
  const startInvoices = (inputs: Record<string, unknown> = {}) =>
    alice.start("skill_backoffice_invoices", {
      base_url: `${server.origin}/demo/backoffice`,
      password: "demo-password",
      ...inputs,
    });

  it("sign in through call and read every page of the invoice table", async () => {
    const { id } = await startInvoices({ large_from: 450 });
    const run = await alice.ended(id, 90_000);
    expect(run.state, JSON.stringify(run.data)).toBe("finish");
    const invoices = INVOICES.map((invoice) => ({
      number: invoice.number,
      customer: invoice.customer,
      amount: formatAmount(invoice.amountCents),
      date: invoice.date,
    }));
    const cents = INVOICES.reduce((sum, invoice) => sum + invoice.amountCents, 0);
    const large = INVOICES.filter((invoice) => invoice.amountCents >= 45_000);
    expect(large.length).toBeGreaterThan(0);
    // The output map is the whole of the run's data: no scratch variable leaks into it.
    expect(run.data).toEqual({
      invoices,
      count: INVOICES.length,
      total: cents / 100,
      large: large.map((invoice) => invoice.number),
      pages: PAGE_COUNT,
    });
    const events = await alice.events(id);
    const started = events.flatMap((e) => (e.type === "step_started" ? [e.step?.label] : []));
    expect(started).toContain("login › step 2 (fill)");
    expect(started).toContain(`pages #${PAGE_COUNT} › page`);
    expect(started).not.toContain(`pages #${PAGE_COUNT + 1} › page`);
    const logs = events.flatMap((e) => (e.type === "log" ? [e.message] : []));
    expect(logs).toEqual(
      large.map((i) => `large invoice ${i.number}: ${formatAmount(i.amountCents)} (${i.customer})`),
    );
    expect(typesOf(events).at(-1)).toBe("run_finished");
    // The password is a secret input: sealed, and nowhere in what the API answers.
    expect(run.inputs).toMatchObject({ password: "***" });
    expect(JSON.stringify([run, events])).not.toContain("demo-password");
  });

  it("download the CSV export by a click and upload it, the form receiving every byte and line", async () => {
    const { id } = await alice.start("skill_backoffice_export", {
      base_url: `${server.origin}/demo/backoffice`,
      password: "demo-password",
    });
    const run = await alice.ended(id, 90_000);
    expect(run.state, JSON.stringify(run.data)).toBe("finish");
    const csv = Buffer.from(invoicesCsv());
    const lines = INVOICES.length + 1;
    expect(run.data).toEqual({
      file: {
        file: "invoices.csv",
        name: "invoices.csv",
        bytes: csv.length,
        content_type: "text/csv",
        sha256: createHash("sha256").update(csv).digest("hex"),
      },
      lines,
      uploaded: { name: "invoices.csv", bytes: String(csv.length), lines: String(lines) },
    });
    // The download is a run file, kept byte for byte beside the run's video.
    expect(readFileSync(join(server.fileStore.filesDirOf(id), "invoices.csv"))).toEqual(csv);
    const events = await alice.events(id);
    const started = events.flatMap((e) => (e.type === "step_started" ? [e.step?.label] : []));
    expect(started).toEqual(
      expect.arrayContaining(["export", "export_text", "step 6 (read_file)", "step 9 (upload)"]),
    );
    expect(typesOf(events).at(-1)).toBe("run_finished");
    expect(JSON.stringify([run, events])).not.toContain("demo-password");
  });

  it("fail clearly, naming the login step, on a wrong password", async () => {
    const { id } = await startInvoices({ password: "not-the-password" });
    const run = await alice.ended(id, 60_000);
    expect(run.state).toBe("reset");
    // What output could evaluate: nothing was read, so the lists and figures are null (count 0).
    expect(run.data).toEqual({
      invoices: null,
      count: 0,
      total: null,
      large: null,
      pages: null,
      error: {
        step: "login › step 8 (fail)",
        message: "could not sign in as demo: Wrong username or password",
      },
    });
  });
});

describe("a browser run cancelled mid-way", () => {
  it("stops, closes its browser, and still has a playable video of what happened", async () => {
    const { id } = await alice.start("skill_patient", { shop_url: shopUrl });
    await alice.waitFor(id, () => chromiumProcessesOf(id) > 0);
    // Into the wait, with the page filled in.
    await untilNap(alice, id);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await alice.cancel(id)).toBe("cancel");
    const run = await withVideo(id);
    expect(run.state).toBe("cancel");
    const video = await probeVideo(run);
    expect(video).toMatchObject({ width: 1280, height: 720 });
    expect(video.durationS).toBeGreaterThan(0.5);
    expect(video.frames).toBeGreaterThan(0);
    await alice.waitFor(id, () => chromiumProcessesOf(id) === 0, 10_000);
  });
});

describe("a browser step that fails", () => {
  it("ends the run in reset naming the step and the selector; the video is still there", async () => {
    const { id } = await alice.start("skill_wrong_selector", { shop_url: shopUrl });
    const run = await alice.ended(id, 60_000);
    expect(run.state).toBe("reset");
    const { error, first } = run.data as {
      error: { step: string; message: string };
      first: string;
    };
    expect(first).toBe("Basic plan");
    expect(error.step).toBe("checkout");
    expect(error.message).toContain("#checkout-button");
    const video = await probeVideo(await withVideo(id));
    expect(video.durationS).toBeGreaterThan(0);
    expect(chromiumProcessesOf(id)).toBe(0);
  });
});

describe("a browser run past its time limit", () => {
  it("ends in timeout with its browser closed and its video kept", async () => {
    const { id } = await alice.start("skill_hurried", { shop_url: shopUrl });
    const run = await alice.ended(id, 20_000);
    expect(run.state).toBe("timeout");
    expect(run.data).toMatchObject({ error: { step: "nap" } });
    expect(run.video_url).not.toBeNull();
    expect((await probeVideo(run)).durationS).toBeGreaterThan(0.5);
    expect(chromiumProcessesOf(id)).toBe(0);
  });
});

describe("a worker shutting down during a browser run", () => {
  it("closes the run's browser and keeps its video before ending the run, which may have had effects", async () => {
    const own = await startTestServer({ worker: { concurrency: 1 } });
    try {
      await own.importSkillYaml("alice", PATIENT);
      const client = new RunClient(own.origin, await own.keyFor("alice"));
      const { id } = await client.start("skill_patient", { shop_url: `${own.origin}/demo/` });
      await untilNap(client, id);
      expect(chromiumProcessesOf(id)).toBeGreaterThan(0);
      await own.worker?.stop();
      expect(chromiumProcessesOf(id)).toBe(0);
      // Its browser steps may have changed something: it is not put back in the queue.
      const ended = await client.get(id);
      expect(ended.state).toBe("reset");
      expect((ended.data as { error: { message: string } }).error.message).toMatch(
        /shut down during step .*; not re-run because it may have had effects/,
      );
      expect(ended.video_url).not.toBeNull();
      expect(typesOf(await client.events(id)).slice(-2)).toEqual(["video_recorded", "run_failed"]);
    } finally {
      await own.close();
    }
  });
});

describe("without Chromium", () => {
  it("ends a browser run in reset with an error that says where Chromium was looked for", async () => {
    const missing = join(scratch, "no-chromium-here");
    const bare = await startTestServer({ worker: { concurrency: 1 }, chromiumPath: missing });
    try {
      await bare.importSkillYaml("alice", PATIENT);
      const client = new RunClient(bare.origin, await bare.keyFor("alice"));
      const { id } = await client.start("skill_patient", { shop_url: `${bare.origin}/demo/` });
      const run = await client.ended(id);
      expect(run.state).toBe("reset");
      const { error } = run.data as { error: { step: string; message: string } };
      expect(error.step).toBe("step 1 (goto)");
      expect(error.message).toContain(`CHROMIUM_PATH is ${missing}`);
      expect(run.video_url).toBeNull();
    } finally {
      await bare.close();
    }
  });
});

describe("the demo shop", () => {
  it("is served at /demo/ without an API key", async () => {
    const reply = await call(server.origin, "GET", "/demo/");
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toMatch(/^text\/html/);
    expect(reply.text).toContain('<form id="order">');
    const redirect = await fetch(`${server.origin}/demo`, { redirect: "manual" });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get("location")).toBe("/demo/");
  });

  it("is what the example skill opens by default", () => {
    const skill = parse(DEMO_SKILL) as { inputs: { json_key: string; default?: string }[] };
    const url = skill.inputs.find((input) => input.json_key === "shop_url")?.default;
    expect(url).toBe("http://127.0.0.1:8080/demo/");
  });
});
