import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchTestBrowser, startTestServer, type TestServer } from "@skillrun/server/test-support";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessibilityProblems } from "./axe.js";

import { Receiver } from "./receiver.js";

/**
 * The dashboard as a person uses it, in real Chromium, against a real server with a worker: the
 * tests share the server, the browser and one signed-in tab, and follow one another.
 * With DASHBOARD_SCREENSHOTS=<folder> each page is also saved there at 1280×720.
 */

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const screenshots = process.env.DASHBOARD_SCREENSHOTS;
const OWNER = "demo";

let server: TestServer;
let browser: Browser;
let page: Page;
let key: string;
const receiver = new Receiver();
/** What the browser reported the Content-Security-Policy refused, over every test. */
const refused: string[] = [];
/** What axe found on each page the tests saved a picture of, by page. */
const inaccessible: Record<string, string[]> = {};

// Long enough to cancel by hand; the run ends when cancelled.
const WAITING_SKILL = `
id: skill_wait
name: Wait a long time
inputs: []
timeout: 10m
steps:
  - wait: 5m
`;

const ASK_SKILL = `
id: skill_ask
name: Ask for a code
inputs: []
steps:
  - id: code
    ask:
      prompt: "The six-digit code from the text message"
      schema:
        type: object
        required: [code]
        properties:
          code: { type: string, minLength: 6, maxLength: 6, description: Six digits }
      save_as: answer
`;

const STEPS_SKILL = `
id: skill_steps
name: Four short waits
inputs: []
steps:
  - wait: 1s
  - wait: 1s
  - wait: 1s
  - wait: 1s
`;

const SECRET_SKILL = `
id: skill_sign_in
name: Sign in somewhere
inputs:
  - { json_key: user, data_type: string }
  - { json_key: password, data_type: string, secret: true }
steps:
  - log: "signing in as {{ inputs.user }}"
`;

const NESTED_SKILL = `
id: skill_rounds
name: Two rounds
inputs: []
steps:
  - id: rounds
    for_each:
      items: [1, 2]
      as: n
      steps:
        - id: say
          log: "round {{ vars.n }}"
`;

// Fails at `check`; RERUN_FIXED is the same skill mended, its steps where they were.
const RERUN_SKILL = `
id: skill_rerun
name: Prepare, count, check
inputs: []
steps:
  - id: prepare
    set: { prepared: true }
  - id: rounds
    for_each:
      items: [1, 2]
      as: n
      steps:
        - id: say
          log: "round {{ vars.n }}"
  - id: check
    fail: "the check failed"
  - set: { done: true }
`;

const RERUN_FIXED = RERUN_SKILL.replace(
  'fail: "the check failed"',
  'if: "{{ false }}"\n    fail: "the check failed"',
);

// Many short steps: its log outgrows its box while the run goes on.
const MANY_STEPS_SKILL = `
id: skill_many_steps
name: Many short steps
inputs: []
steps:
  - id: rounds
    for_each:
      items: "{{ [1..60] }}"
      as: n
      steps:
        - id: tick
          wait: 150ms
`;

const FILE_SKILL = `
id: skill_count_file
name: Count a file
inputs:
  - { json_key: report, data_type: file }
  - { json_key: minimum, data_type: number }
steps:
  - set: { received: "{{ inputs.report }}" }
  - if: "{{ inputs.report.bytes < inputs.minimum }}"
    fail: "the report is too short"
`;

/** One call to the API as a client would make it, outside the browser. */
function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  return apiOf<T>(server, key, method, path, body);
}

/** One call to the API of `on` with `apiKey`, as a client would make it. */
async function apiOf<T>(
  on: TestServer,
  apiKey: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const response = await fetch(`${on.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok)
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

interface Run {
  id: string;
  state: string | null;
  data: Record<string, unknown> | null;
}

/** Checks the page as it is now with axe; what it finds is kept under `name`. */
async function checkAccessibility(name: string): Promise<void> {
  const problems = await accessibilityProblems(page);
  if (problems.length > 0) inaccessible[name] = problems;
}

/** Checks the page as it is now with axe, and saves its picture when asked to. */
async function shot(name: string): Promise<void> {
  await checkAccessibility(name);
  if (!screenshots) return;
  mkdirSync(screenshots, { recursive: true });
  await page.screenshot({ path: join(screenshots, `${name}.png`) });
}

/** The run state the page shows in its facts (null: queued). */
function shownState(): Promise<string | null> {
  return page.locator(".facts .state").getAttribute("data-state");
}

beforeAll(async () => {
  server = await startTestServer({ worker: { concurrency: 4 } });
  // The example skills as `serve --demo` imports them: the shop's address is this server's.
  const skill = (file: string) =>
    readFileSync(join(repo, "skills", file), "utf8").replaceAll(
      "http://127.0.0.1:8080",
      server.origin,
    );
  await server.importSkillYaml(
    OWNER,
    skill("demo-shop-order.yaml"),
    skill("sum.yaml"),
    WAITING_SKILL,
    ASK_SKILL,
    FILE_SKILL,
    STEPS_SKILL,
    SECRET_SKILL,
    NESTED_SKILL,
    RERUN_SKILL,
    MANY_STEPS_SKILL,
  );
  key = await server.keyFor(OWNER);
  browser = await launchTestBrowser();
  const context = await browser.newContext({
    viewport: { width: 1280, height: 720 },
    acceptDownloads: true,
  });
  page = await context.newPage();
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await receiver.close();
});

describe("the dashboard in Chromium", () => {
  it("signs in with an API key, refusing a wrong one, and a 401 later returns to sign-in", async () => {
    await page.goto(`${server.origin}/`);
    expect(new URL(page.url()).pathname).toBe("/ui/");
    await shot("sign-in");
    await page.getByLabel("API key").fill("sk_wrong");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").getByText("The server did not accept this API key.").waitFor();

    // By keyboard alone, from the top of the page: the field, the key, Enter.
    await page.reload();
    await page.getByLabel("API key").waitFor();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("api-key");
    await page.keyboard.type(key);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "No runs yet" }).waitFor();
    // The first stop is the link that skips to the content, then the sections.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Runs");
    // The key is kept for the tab, never put in an address.
    expect(page.url()).not.toContain(key);
    expect(await page.evaluate(() => sessionStorage.getItem("skillrun.apiKey"))).toBe(key);
    await shot("runs-empty");

    // A key the server no longer accepts: the next answer is a 401, and sign-in comes back.
    await page.evaluate(() => sessionStorage.setItem("skillrun.apiKey", "sk_revoked"));
    await page.reload();
    await page.getByText("The server did not accept the API key: sign in again.").waitFor();
    await page.getByLabel("API key").fill(key);
    await page.getByRole("button", { name: "Sign in" }).click();

    // Signing out forgets the key.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("API key").waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem("skillrun.apiKey"))).toBeNull();
    await page.getByLabel("API key").fill(key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "No runs yet" }).waitFor();
  });

  it("asks for the key again in a new tab, unless it was remembered on this device", async () => {
    const context = page.context();
    const signedIn = async (tab: Page) => {
      await tab.goto(`${server.origin}/ui/`);
      await Promise.race([
        tab.getByLabel("API key").waitFor(),
        tab.getByRole("button", { name: "Sign out" }).waitFor(),
      ]);
      return tab.getByRole("button", { name: "Sign out" }).isVisible();
    };
    // Kept for this tab only: a new tab (a Ctrl-click) asks again.
    const first = await context.newPage();
    expect(await signedIn(first)).toBe(false);
    await first.close();

    // Remembered: every new tab of this browser is signed in, until Sign out.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("API key").fill(key);
    await page.getByLabel("Remember on this device").check();
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "No runs yet" }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem("skillrun.apiKey"))).toBe(key);
    expect(await page.evaluate(() => sessionStorage.getItem("skillrun.apiKey"))).toBeNull();
    const second = await context.newPage();
    expect(await signedIn(second)).toBe(true);

    // Signing out in one tab forgets it on the device: the next tab asks again.
    await second.getByRole("button", { name: "Sign out" }).click();
    await second.getByLabel("API key").waitFor();
    expect(await second.evaluate(() => localStorage.getItem("skillrun.apiKey"))).toBeNull();
    await second.close();
    const third = await context.newPage();
    expect(await signedIn(third)).toBe(false);
    await third.close();

    // Back to this tab's own key for the tests below.
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    await page.getByLabel("API key").fill(key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "No runs yet" }).waitFor();
  });

  let demoRunId = "";

  it("starts the demo skill from its form and watches it finish live", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "Skills" }).click();
    await page.getByRole("link", { name: "Order in the demo shop" }).waitFor();
    await shot("skills");
    await page.getByRole("link", { name: "Order in the demo shop" }).click();
    // The form generated from the skill's inputs, with their defaults.
    const seats = page.getByLabel(/^seats/);
    expect(await seats.getAttribute("type")).toBe("number");
    expect(await seats.inputValue()).toBe("3");
    await page.getByLabel(/^name/).fill("Grace Hopper");
    await shot("skill");
    await page.getByRole("button", { name: "Run", exact: true }).click();

    await page.waitForURL(/\/ui\/runs\/run_/);
    demoRunId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop() ?? "");
    // Marks this document: a reload or a new page would lose it.
    await page.evaluate(() => {
      (window as unknown as { marked: boolean }).marked = true;
    });
    // The run is just starting (its browser alone takes a second)...
    expect(await shownState()).not.toBe("finish");
    // ...and the page follows it to its end without being reloaded.
    await page.locator('.facts .state[data-state="finish"]').waitFor({ timeout: 45_000 });
    expect(await page.evaluate(() => (window as unknown as { marked?: boolean }).marked)).toBe(
      true,
    );

    const run = await api<Run>("GET", `/run/${demoRunId}`);
    expect(run.state).toBe("finish");
    expect(run.data?.order_number).toBeTruthy();
    const inputs = page.locator("dl.inputs");
    await inputs.getByText('"Grace Hopper"').waitFor();
    // Every step the API logged is in the step log, with its duration.
    const events = await api<{ type: string; step: { label: string } | null }[]>(
      "GET",
      `/run/${demoRunId}/events?limit=1000`,
    );
    const finished = events.filter((event) => event.type === "step_finished");
    expect(finished.length).toBeGreaterThan(5);
    for (const event of finished) {
      const row = page.locator(`li.step-row[data-label="${event.step?.label}"]`);
      // The run's state and its step log come to the page by separate reads: the last steps may
      // be shown done a moment after the state is.
      await expect.poll(() => row.locator(".step-status").textContent()).toBe("done");
      expect(await row.locator(".step-duration").textContent()).toMatch(/\d+(\.\d)? (ms|s)$/);
    }
  });

  it("plays the run's video and moves it to a step clicked in the log", async () => {
    const video = page.locator("video.run-video");
    await video.waitFor({ timeout: 30_000 });
    await page.waitForFunction(() => (document.querySelector("video")?.readyState ?? 0) >= 1);
    const played = await video.evaluate(async (element: HTMLVideoElement) => {
      element.muted = true;
      await element.play();
      const playing = !element.paused;
      element.pause();
      return playing;
    });
    expect(played).toBe(true);

    const events = await api<
      { type: string; step: { label: string } | null; video_offset_ms: number | null }[]
    >("GET", `/run/${demoRunId}/events?limit=1000`);
    const click = events.find(
      (event) => event.type === "step_started" && event.step?.label === "step 6 (click)",
    );
    expect(click?.video_offset_ms).toBeGreaterThan(0);
    await page
      .locator('li.step-row[data-label="step 6 (click)"]')
      .getByRole("button", { name: /show in the video$/ })
      .click();
    const expected = (click?.video_offset_ms ?? 0) / 1000;
    await page.waitForFunction(
      (seconds) => Math.abs((document.querySelector("video")?.currentTime ?? -1) - seconds) < 0.01,
      expected,
    );
    await page.getByText(/^Video moved to .*: step 6 \(click\)$/).waitFor();
    await page.waitForFunction(() => (document.querySelector("video")?.readyState ?? 0) >= 2);
    await shot("run");
  });

  it("shows the run's screenshot and downloads it", async () => {
    const files = await api<{ name: string; bytes: number; sha256: string }[]>(
      "GET",
      `/run/${demoRunId}/files`,
    );
    const screenshot = files.find((file) => file.name.endsWith(".png"));
    expect(screenshot).toBeDefined();
    const image = page.locator(".files img");
    await image.scrollIntoViewIfNeeded();
    await page.waitForFunction(
      () =>
        ((document.querySelector(".files img") as HTMLImageElement | null)?.naturalWidth ?? 0) > 0,
    );
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: `Download ${screenshot?.name}` }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(screenshot?.name);
    const path = await download.path();
    const bytes = readFileSync(path);
    expect(bytes.length).toBe(screenshot?.bytes);
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(screenshot?.sha256);
  });

  it("cancels a waiting run from its row in the list, which follows it live", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "Runs" }).click();
    const started = await api<Run>("POST", "/run/", { skill_id: "skill_wait" });
    const row = page.locator(`tr[data-run="${started.id}"]`);
    // It appears at the top of the list from the run stream, then is taken by a worker.
    await row.locator('.state[data-state="play"]').waitFor();
    await shot("runs");
    await row.getByRole("button", { name: "Cancel Wait a long time" }).click();
    await row.locator('.state[data-state="cancel"]').waitFor();
    expect((await api<Run>("GET", `/run/${started.id}`)).state).toBe("cancel");
    expect(await row.getByRole("button", { name: /^Cancel/ }).count()).toBe(0);

    // Filtered by state, the list holds that run and not the finished demo run.
    await page.getByLabel("State").selectOption("cancel");
    await page.waitForURL(/\?state=cancel$/);
    await page.locator(`tr[data-run="${demoRunId}"]`).waitFor({ state: "detached" });
    expect(await page.locator("tr[data-run]").count()).toBe(1);
    await row.waitFor();
    await page.getByLabel("State").selectOption("");
  });

  it("answers a run's ask through the form made from its schema; a misfit is shown at the field", async () => {
    const started = await api<Run>("POST", "/run/", { skill_id: "skill_ask" });
    await page.goto(`${server.origin}/ui/runs/${started.id}`);
    const ask = page.getByRole("region", { name: "The run asks" });
    await ask.getByText("The six-digit code from the text message").waitFor();
    const code = page.getByLabel(/^code/);
    await code.fill("123");
    await page.getByRole("button", { name: "Send answer" }).click();
    await page
      .getByRole("alert")
      .getByText(/The answer was refused/)
      .waitFor();
    expect(await code.getAttribute("aria-invalid")).toBe("true");
    await shot("run-ask");
    expect((await api<Run>("GET", `/run/${started.id}`)).state).toBe("pause");

    await code.fill("123456");
    await page.getByRole("button", { name: "Send answer" }).click();
    await page.locator('.facts .state[data-state="finish"]').waitFor();
    const run = await api<Run>("GET", `/run/${started.id}`);
    expect(run.data?.answer).toEqual({ code: "123456" });
  });

  it("pauses a running run before its next step and resumes it", async () => {
    const started = await api<Run>("POST", "/run/", { skill_id: "skill_steps" });
    await page.goto(`${server.origin}/ui/runs/${started.id}`);
    await page.locator('.facts .state[data-state="play"]').waitFor();
    await page.getByRole("button", { name: "Pause" }).click();
    await page.locator('.facts .state[data-state="pause"]').waitFor();
    expect((await api<Run>("GET", `/run/${started.id}`)).state).toBe("pause");
    await page.getByRole("button", { name: "Resume" }).click();
    await page.locator('.facts .state[data-state="finish"]').waitFor();
  });

  it("says a run waits for an answer, parked with no worker, and takes the answer by keyboard; a parked wait says until when", async () => {
    // A server whose worker parks a waiting run at once (PARK_AFTER_SECONDS=0), as a real one does
    // after a while; the shared server keeps its runs in their slots.
    const parking = await startTestServer({ worker: { concurrency: 2, parkAfterMs: 0 } });
    try {
      await parking.importSkillYaml(OWNER, ASK_SKILL, WAITING_SKILL);
      const parkingKey = await parking.keyFor(OWNER);
      const call = <T>(method: string, path: string, body?: unknown) =>
        apiOf<T>(parking, parkingKey, method, path, body);
      const parkedEvent = async (id: string) => {
        const events = await call<{ type: string; data: { wake_at?: string } | null }[]>(
          "GET",
          `/run/${id}/events?limit=1000`,
        );
        return events.find((event) => event.type === "run_parked");
      };

      await page.goto(`${parking.origin}/`);
      await page.getByLabel("API key").fill(parkingKey);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "No runs yet" }).waitFor();

      // Parked at its ask: its state says what it waits for, and nothing says a browser is open.
      const asking = await call<Run>("POST", "/run/", { skill_id: "skill_ask" });
      await expect.poll(() => parkedEvent(asking.id), { timeout: 30_000 }).toBeDefined();
      await page.goto(`${parking.origin}/ui/runs/${asking.id}`);
      const state = page.locator(".facts .state");
      await page.locator('.facts .state[data-reason="ask"]').waitFor();
      expect(await state.textContent()).toBe("?Waiting for an answer");
      const note = page.locator(".facts .state-note");
      await note.getByText("Parked: holds no worker until answered").waitFor();
      expect(await page.locator(".video-placeholder").textContent()).toMatch(
        /^Parked: no browser is open for this run while it waits\./,
      );
      await shot("run-parked");

      // The list says so too, from the paused run's step log.
      await page.getByRole("navigation").getByRole("link", { name: "Runs" }).click();
      const row = page.locator(`tr[data-run="${asking.id}"]`);
      await row.locator('.state[data-reason="ask"]').waitFor();
      expect(await row.locator(".state").textContent()).toBe("?Waiting for an answer");
      await row.getByRole("link", { name: "Ask for a code" }).click();
      await page.getByLabel(/^code/).waitFor();

      // Answered by keyboard alone: from the header's last button to the field, then Send.
      await page.getByRole("button", { name: "Run again" }).focus();
      for (let tabs = 0; tabs < 5; tabs++) {
        if (await page.evaluate(() => document.activeElement?.getAttribute("name"))) break;
        await page.keyboard.press("Tab");
      }
      expect(await page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe(
        "input.code",
      );
      await page.keyboard.type("123456");
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Send answer");
      await page.keyboard.press("Enter");
      // A worker takes it again and it goes on from the ask, answered.
      await page.locator('.facts .state[data-state="finish"]').waitFor({ timeout: 30_000 });
      expect(await note.count()).toBe(0);
      expect((await call<Run>("GET", `/run/${asking.id}`)).data).toEqual({
        answer: { code: "123456" },
      });

      // A long wait is parked at once, until its end, in the reader's local time.
      const waiting = await call<Run>("POST", "/run/", { skill_id: "skill_wait" });
      await expect.poll(() => parkedEvent(waiting.id), { timeout: 30_000 }).toBeDefined();
      const wakeAt = (await parkedEvent(waiting.id))?.data?.wake_at ?? "";
      await page.goto(`${parking.origin}/ui/runs/${waiting.id}`);
      const until = note.locator("time");
      await until.waitFor();
      expect(await until.getAttribute("datetime")).toBe(wakeAt);
      const local = await page.evaluate(
        (iso) =>
          new Intl.DateTimeFormat("en", { dateStyle: "medium", timeStyle: "medium" }).format(
            new Date(iso),
          ),
        wakeAt,
      );
      expect(await note.textContent()).toBe(`Parked until ${local}`);
      expect(await state.textContent()).toBe("▶Running");
      expect(await page.locator(".video-placeholder").textContent()).toMatch(/^Parked: no browser/);
      await checkAccessibility("run-parked-wait");
      // Cancelled while parked, it ends where it stopped and says no more of parking.
      await page.getByRole("button", { name: "Cancel the run" }).click();
      await page.locator('.facts .state[data-state="cancel"]').waitFor();
      expect(await note.count()).toBe(0);
    } finally {
      await parking.close();
    }
  });

  it("starts a skill with a file uploaded from its form; a 422 shows at its field, a failure at its step", async () => {
    await page.goto(`${server.origin}/ui/skills/skill_count_file`);
    const report = { name: "report.csv", mimeType: "text/csv", buffer: Buffer.from("a,b\n1,2\n") };
    await page.locator('input[type="file"][name="report"]').setInputFiles(report);
    // A number the server cannot read: its 422 is shown at the field, nothing is started.
    await page.getByLabel(/^minimum/).fill("");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    const minimum = page.getByLabel(/^minimum/);
    await page.locator('input[aria-invalid="true"][name="minimum"]').waitFor();
    expect(await minimum.getAttribute("aria-describedby")).toBeTruthy();
    expect(new URL(page.url()).pathname).toBe("/ui/skills/skill_count_file");

    await minimum.fill("100");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await page.waitForURL(/\/ui\/runs\/run_/);
    await page.locator('.facts .state[data-state="reset"]').waitFor();
    const failure = page.getByRole("alert").filter({ hasText: /^Failed at/ });
    expect(await failure.getByRole("heading").textContent()).toBe("Failed at step 2 (fail)");
    await failure.getByText("the report is too short").waitFor();
    const id = decodeURIComponent(new URL(page.url()).pathname.split("/").pop() ?? "");
    const run = await api<Run>("GET", `/run/${id}`);
    expect(run.data?.received).toMatchObject({ name: "report.csv", bytes: report.buffer.length });
    await page.getByRole("link", { name: "Download report.csv" }).waitFor();
  });

  it("adds a webhook, shows its secret once, and shows the delivery of a run's end", async () => {
    const url = await receiver.start();
    await page.getByRole("navigation").getByRole("link", { name: "Webhooks" }).click();
    await page.getByLabel("Address (http or https)").fill(url);
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const secret = page.getByLabel("Signing secret");
    await secret.waitFor();
    expect(await secret.inputValue()).toMatch(/^whsec_/);

    const run = await api<Run>("POST", "/run/", { skill_id: "skill_sum", inputs: { a: 1, b: 2 } });
    const item = page.locator("li.webhook", { hasText: url });
    await item.getByRole("button", { name: "Show deliveries" }).click();
    const delivery = item.locator("tr[data-delivery]", { hasText: "run.finished" });
    await delivery.getByText("delivered").waitFor({ timeout: 30_000 });
    expect(await delivery.textContent()).toContain("HTTP 204");
    await shot("webhooks");
    expect(receiver.bodies.map((body) => (JSON.parse(body) as Run).id)).toContain(run.id);

    await page.getByRole("button", { name: "I have copied it" }).click();
    expect(await page.getByLabel("Signing secret").count()).toBe(0);

    // Redeliver sends the same delivery again.
    const sent = receiver.bodies.length;
    await delivery.getByRole("button", { name: "Redeliver" }).click();
    await expect.poll(() => receiver.bodies.length, { timeout: 30_000 }).toBeGreaterThan(sent);

    // Deleting asks once more, then the endpoint is gone.
    await item.getByRole("button", { name: "Delete", exact: true }).click();
    await item.getByRole("button", { name: "Delete it and its deliveries" }).click();
    await item.waitFor({ state: "detached" });
    expect(await api<unknown[]>("GET", "/webhook/list")).toEqual([]);
  });

  it("creates a schedule from a skill's page, its refusals at their fields; lists, pauses, resumes, shows ticks and deletes it", async () => {
    await page.goto(`${server.origin}/ui/skills/skill_sum`);
    await page.getByRole("radio", { name: "On a schedule" }).check();
    const form = page.locator("form.schedule-form");
    await form.getByLabel(/^a/).fill("2");
    await form.getByLabel(/^b/).fill("3");
    // An unknown zone and a cron firing every second: each 422 at its own field, nothing created.
    await form.getByLabel("Time zone").fill("Mars/Olympus");
    await form.getByRole("button", { name: "Create schedule" }).click();
    await form.locator('input[aria-invalid="true"][name="timezone"]').waitFor();
    await form.getByLabel("Time zone").fill("Europe/Berlin");
    await form.getByLabel("Cron").fill("* * * * * *");
    await form.getByRole("button", { name: "Create schedule" }).click();
    await form.locator('input[aria-invalid="true"][name="cron"]').waitFor();
    expect(await form.locator('input[aria-invalid="true"]').count()).toBe(1);
    await page.locator("#run-form-title").evaluate((title) => title.scrollIntoView());
    await shot("schedule-create");
    expect(await api<unknown[]>("GET", "/schedule/list")).toEqual([]);

    await form.getByLabel("Cron").fill("0 7 * * MON-FRI");
    // The preview, asked of the server as the fields settle: five weekday mornings in Berlin.
    const preview = form.locator(".next-runs-preview time");
    await expect
      .poll(async () => (await preview.allTextContents()).join(","), { timeout: 10_000 })
      .toMatch(/^(\d{4}-\d{2}-\d{2} 07:00 \+0[12]:00,){4}\d{4}-\d{2}-\d{2} 07:00 \+0[12]:00$/);
    const previewed = await preview.evaluateAll((times) =>
      times.map((time) => time.getAttribute("datetime")),
    );
    await form.getByRole("button", { name: "Create schedule" }).click();
    await page.waitForURL(/\/ui\/schedules$/);
    const [created] = await api<{ id: string; next_runs: string[] }[]>("GET", "/schedule/list");
    if (created === undefined) throw new Error("no schedule was created");
    const item = page.locator(`li[data-schedule="${created.id}"]`);
    await item.getByText("0 7 * * MON-FRI in Europe/Berlin").waitFor();
    // The next runs as the server computed them, on Berlin's wall clock.
    const shown = await item.locator(".next-runs time").allTextContents();
    expect(shown).toHaveLength(5);
    expect(await item.locator(".next-runs time").first().getAttribute("datetime")).toBe(
      created.next_runs[0],
    );
    for (const at of shown) expect(at).toMatch(/^\d{4}-\d{2}-\d{2} 07:00 \+0[12]:00$/);
    // What the form previewed is what the schedule was created with.
    expect(previewed).toEqual(created.next_runs);

    // A run now: its tick links the run, and the schedule shows it as its last run.
    const run = await api<Run>("POST", `/schedule/${created.id}/trigger`);
    await page.reload();
    await item.getByRole("button", { name: "Show ticks" }).click();
    const tick = item.locator('tr[data-outcome="fired"]');
    await tick.getByText("fired (triggered)").waitFor();
    expect(await tick.getByRole("link").getAttribute("href")).toBe(`/ui/runs/${run.id}`);
    await item.locator('.schedule-facts .state[data-state="finish"]').waitFor({ timeout: 30_000 });
    await shot("schedules");

    await item.getByRole("button", { name: "Pause" }).click();
    await item.getByRole("button", { name: "Resume" }).waitFor();
    expect(await item.locator(".schedule-state").textContent()).toBe("paused");
    await item.getByRole("button", { name: "Resume" }).click();
    await item.getByRole("button", { name: "Pause" }).waitFor();

    await item.getByRole("button", { name: "Delete", exact: true }).click();
    await item.getByRole("button", { name: "Delete the schedule" }).click();
    await item.waitFor({ state: "detached" });
    expect(await api<unknown[]>("GET", "/schedule/list")).toEqual([]);
  });

  it("lists browser profiles, their cookies by domain and never a value, and deletes one", async () => {
    const expires = Math.floor(Date.now() / 1000) + 3600;
    await api("PUT", "/profile/backoffice-demo", {
      cookies: [
        {
          name: "backoffice_session",
          value: "the-session-value-never-shown",
          domain: "127.0.0.1",
          path: "/demo/backoffice",
          expires,
          httpOnly: true,
          secure: false,
          sameSite: "Lax",
        },
      ],
      origins: [],
    });
    await page.getByRole("navigation").getByRole("link", { name: "Profiles" }).click();
    const item = page.locator('li[data-profile="backoffice-demo"]');
    await item.getByText(/^version 1 · saved .+ · imported · 1 cookie, \d+ bytes$/).waitFor();
    const row = item.locator("tbody tr");
    expect(await row.locator("td").allTextContents()).toEqual([
      "127.0.0.1",
      "1",
      expect.any(String),
    ]);
    expect(Date.parse((await row.locator("time").getAttribute("datetime")) ?? "")).toBe(
      expires * 1000,
    );
    expect(await page.content()).not.toContain("the-session-value-never-shown");
    await shot("profiles");

    await item.getByRole("button", { name: "Delete backoffice-demo" }).click();
    await item.getByRole("button", { name: "Delete it and its saved sign-ins" }).click();
    await item.waitFor({ state: "detached" });
    expect(await api<unknown[]>("GET", "/profile/list")).toEqual([]);
  });

  it("runs a run again with the same inputs", async () => {
    const first = await api<Run>("POST", "/run/", {
      skill_id: "skill_sum",
      inputs: { a: 2, b: 5 },
    });
    await page.goto(`${server.origin}/ui/runs/${first.id}`);
    await page.locator('.facts .state[data-state="finish"]').waitFor();
    await page.getByRole("button", { name: "Run again" }).click();
    await page.waitForURL(
      (url) => url.pathname.startsWith("/ui/runs/") && !url.pathname.endsWith(first.id),
    );
    const againId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop() ?? "");
    await page.locator('.facts .state[data-state="finish"]').waitFor();
    const again = await api<Run & { inputs: unknown }>("GET", `/run/${againId}`);
    expect(again.inputs).toEqual({ a: 2, b: 5 });
    expect(again.data?.total).toBe(7);
  });

  it("reruns a failed run from the failed step and from a step of its log; a refusal is shown", async () => {
    const failed = await api<Run>("POST", "/run/", { skill_id: "skill_rerun" });
    await page.goto(`${server.origin}/ui/runs/${failed.id}`);
    await page.locator('.facts .state[data-state="reset"]').waitFor();
    // No checkpoint is kept before a step inside a loop: the server's 422 is shown at its row.
    const inner = page.locator('li.step-row[data-label="rounds #1 › say"]');
    await inner.getByRole("button", { name: "Rerun from this step: rounds #1 › say" }).click();
    await inner
      .getByRole("alert")
      .getByText(
        "no checkpoint is kept before step rounds #1 › say; this run can be rerun from: prepare, rounds, check",
        { exact: false },
      )
      .waitFor();
    expect(new URL(page.url()).pathname).toBe(`/ui/runs/${failed.id}`);

    // The skill mended, the rerun starts at the failed step, the steps before it not run again.
    const put = await fetch(`${server.baseUrl}/skill/skill_rerun`, {
      method: "PUT",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/yaml" },
      body: RERUN_FIXED,
    });
    expect(put.status).toBe(200);
    await page.getByRole("button", { name: "Rerun from the failed step" }).click();
    await page.waitForURL(
      (url) => url.pathname.startsWith("/ui/runs/") && !url.pathname.endsWith(failed.id),
    );
    const fromCheck = decodeURIComponent(new URL(page.url()).pathname.split("/").pop() ?? "");
    await page.locator('.facts .state[data-state="finish"]').waitFor();
    const rerun = await api<Run & { rerun_of: unknown }>("GET", `/run/${fromCheck}`);
    expect(rerun.rerun_of).toEqual({ run_id: failed.id, step: "check" });
    expect(rerun.data).toEqual({ prepared: true, done: true });
    const events = await api<{ type: string; step: { label: string } | null }[]>(
      "GET",
      `/run/${fromCheck}/events?limit=1000`,
    );
    const started = events.filter((event) => event.type === "step_started");
    expect(started.map((event) => event.step?.label)).not.toContain("prepare");
    const origin = page.locator(".rerun-of");
    expect(await origin.textContent()).toBe(`Rerun of ${failed.id} from step check`);
    await shot("run-rerun");

    // Back to the original by its link; a step's rerun by keyboard alone, from row to row.
    await origin.getByRole("link", { name: failed.id }).click();
    await page.waitForURL((url) => url.pathname.endsWith(failed.id));
    await page.getByRole("button", { name: "Rerun from this step: prepare" }).focus();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(
      "Rerun from this step: rounds",
    );
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Enter");
    await page.waitForURL(
      (url) => !url.pathname.endsWith(failed.id) && !url.pathname.endsWith(fromCheck),
    );
    await page.locator('.facts .state[data-state="finish"]').waitFor();
    const fromPrepare = decodeURIComponent(new URL(page.url()).pathname.split("/").pop() ?? "");
    const again = await api<Run & { rerun_of: unknown }>("GET", `/run/${fromPrepare}`);
    expect(again.rerun_of).toEqual({ run_id: failed.id, step: "prepare" });
    expect(again.data).toEqual({ prepared: true, done: true });
  });

  it("types a secret input in a password field and never shows it; running again asks for it", async () => {
    await page.goto(`${server.origin}/ui/skills/skill_sign_in`);
    const password = page.getByLabel(/^password/);
    expect(await password.getAttribute("type")).toBe("password");
    await page.getByLabel(/^user/).fill("ada");
    await password.fill("hunter2-very-secret");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await page.waitForURL(/\/ui\/runs\/run_/);
    await page.locator('.facts .state[data-state="finish"]').waitFor();
    const inputs = page.locator("dl.inputs");
    await inputs.getByText("(secret, hidden)").waitFor();
    expect(await page.content()).not.toContain("hunter2-very-secret");

    // The API never gives the secret back: running again opens the form for it to be typed again.
    await page.getByRole("button", { name: "Run again" }).click();
    await page.waitForURL(/\/ui\/skills\/skill_sign_in\?again=run_/);
    expect(await page.getByLabel(/^user/).inputValue()).toBe("ada");
    expect(await page.getByLabel(/^password/).inputValue()).toBe("");
  });

  it("indents the steps of a block under it in the step log", async () => {
    const started = await api<Run>("POST", "/run/", { skill_id: "skill_rounds" });
    await page.goto(`${server.origin}/ui/runs/${started.id}`);
    await page.locator('.facts .state[data-state="finish"]').waitFor();
    const indent = (label: string) =>
      page
        .locator(`li.step-row[data-label="${label}"]`)
        .evaluate((row) => Number.parseFloat(getComputedStyle(row).paddingInlineStart));
    const outer = await indent("rounds");
    expect(await indent("rounds #1 › say")).toBeGreaterThan(outer);
    expect(await indent("rounds #2 › say")).toBeGreaterThan(outer);
    await page.getByText("round 2", { exact: true }).waitFor();
  });

  it("follows a live run's newest step in its log, until the reader scrolls up", async () => {
    const started = await api<Run>("POST", "/run/", { skill_id: "skill_many_steps" });
    await page.goto(`${server.origin}/ui/runs/${started.id}`);
    const log = page.locator(".step-log");
    const box = () =>
      log.evaluate((list) => ({
        fromBottom: list.scrollHeight - list.scrollTop - list.clientHeight,
        scrollTop: list.scrollTop,
        overflow: list.scrollHeight - list.clientHeight,
        rows: list.querySelectorAll("li").length,
      }));
    // Grown past its box while the run goes on: at its newest row.
    await expect.poll(async () => (await box()).overflow, { timeout: 30_000 }).toBeGreaterThan(200);
    expect(await shownState()).toBe("play");
    expect((await box()).fromBottom).toBeLessThanOrEqual(24);
    // Scrolled up by the reader: it stays where they put it while rows come.
    await log.evaluate((list) => {
      list.scrollTop = 0;
    });
    const before = (await box()).rows;
    await expect
      .poll(async () => (await box()).rows, { timeout: 30_000 })
      .toBeGreaterThan(before + 4);
    expect((await box()).scrollTop).toBe(0);
    // Back at the bottom, it follows again.
    await log.evaluate((list) => {
      list.scrollTop = list.scrollHeight;
    });
    const again = (await box()).rows;
    await expect
      .poll(async () => (await box()).rows, { timeout: 30_000 })
      .toBeGreaterThan(again + 4);
    expect((await box()).fromBottom).toBeLessThanOrEqual(24);
    await api<string>("POST", `/run/${started.id}/cancel`);
  });

  it("sets and deletes a secret, never showing its value", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "Secrets" }).click();
    await page.getByRole("heading", { name: "Secrets", level: 1 }).waitFor();
    await page.getByText("No secrets yet.").waitFor();
    await page.getByLabel("Name").fill("SHOP_TOKEN");
    expect(await page.getByLabel("Value").getAttribute("type")).toBe("password");
    await page.getByLabel("Value").fill("tok-very-secret");
    await page.getByRole("button", { name: "Set secret" }).click();
    await page.locator('tr[data-secret="SHOP_TOKEN"]').waitFor();
    expect(await page.getByLabel("Value").inputValue()).toBe("");
    expect(await page.content()).not.toContain("tok-very-secret");
    await shot("secrets");
    // A name the API refuses: its message at the field, without FastAPI's "Value error, ".
    await page.getByLabel("Name").fill("9lives");
    await page.getByLabel("Value").fill("x");
    await page.getByRole("button", { name: "Set secret" }).click();
    const issue = page.locator("#secret-name-error");
    await issue.waitFor();
    expect(await issue.textContent()).not.toMatch(/^Value error/);
    // Deleting asks once more.
    await page.getByRole("button", { name: "Delete secret SHOP_TOKEN" }).click();
    await page.getByRole("button", { name: "Delete secret SHOP_TOKEN for good" }).click();
    await page.getByText("No secrets yet.").waitFor();
    expect(await api<unknown[]>("GET", "/secret/list")).toEqual([]);
  });

  it("creates a key with scopes, shows it once to copy, and revokes it", async () => {
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.getByRole("navigation").getByRole("link", { name: "API keys" }).click();
    await page.getByRole("heading", { name: "API keys", level: 1 }).waitFor();
    await page.getByLabel("What it is for (optional)").fill("nightly report");
    await page.getByRole("checkbox", { name: "runs:write" }).check();
    await page.getByRole("button", { name: "Create key" }).click();
    const shown = page.locator("#new-key");
    await shown.waitFor();
    const created = await shown.inputValue();
    expect(created).toMatch(/^sk_/);
    await page.getByRole("button", { name: "Copy the key" }).click();
    await page.getByText("Copied.").waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(created);
    // The new key works, with its scopes.
    const runs = await fetch(`${server.baseUrl}/run/list?limit=1`, {
      headers: { authorization: `Bearer ${created}` },
    });
    expect(runs.status).toBe(200);
    const row = page.locator("tr", { hasText: "nightly report" });
    await row.waitFor();
    expect(await row.locator("td").nth(1).textContent()).toBe("runs:read, runs:write");
    await shot("keys");
    await page.getByRole("button", { name: "I have copied it" }).click();
    expect(await shown.count()).toBe(0);
    await page.getByRole("button", { name: "Revoke key nightly report" }).click();
    await page.getByRole("button", { name: "Revoke key nightly report for good" }).click();
    await row.waitFor({ state: "detached" });
    const refused = await fetch(`${server.baseUrl}/run/list?limit=1`, {
      headers: { authorization: `Bearer ${created}` },
    });
    expect(refused.status).toBe(401);
  });

  it("shows an overview of the last 24 hours: runs by state, failures by skill, the queue", async () => {
    const figures = await api<{ by_state: Record<string, number> }>("GET", "/run/summary");
    await page.getByRole("navigation").getByRole("link", { name: "Overview" }).click();
    const finished = page.locator('.by-state tr[data-state="finish"] td').nth(1);
    await expect.poll(() => finished.textContent()).toBe(String(figures.by_state.finish));
    expect(figures.by_state.finish).toBeGreaterThan(0);
    // The skill that failed in the tests above is named.
    await page.locator('.failing tr[data-skill="skill_rerun"]').waitFor();
    const bar = await page
      .locator('.state-bars g[data-state="finish"] rect')
      .evaluate((rect) => rect.getBoundingClientRect().width);
    expect(bar).toBeGreaterThan(0);
    await shot("overview");
  });

  it("shows the agents page, saying that client runs wait for an agent while none has called", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "Agents" }).click();
    await page.locator("main h1", { hasText: "Agents" }).waitFor();
    await page.getByText("No agent has called within the last day").waitFor();
    await shot("agents");
  });

  it("pages through the runs with their cursor", async () => {
    for (let i = 0; i < 26; i++) {
      await api<Run>("POST", "/run/", { skill_id: "skill_sum", inputs: { a: i, b: 1 } });
    }
    const all = await api<Run[]>("GET", "/run/list?skill_id=skill_sum&limit=1000");
    expect(all.length).toBeGreaterThan(25);
    await page.goto(`${server.origin}/ui/?skill=skill_sum`);
    const rows = page.locator("tr[data-run]");
    await rows.first().waitFor();
    expect(
      await rows.evaluateAll((found) => found.map((row) => row.getAttribute("data-run"))),
    ).toEqual(all.slice(0, 25).map((run) => run.id));
    await page.getByRole("button", { name: "Older runs" }).click();
    await page.locator(`tr[data-run="${all[25]?.id}"]`).waitFor();
    expect(
      await rows.evaluateAll((found) => found.map((row) => row.getAttribute("data-run"))),
    ).toEqual(all.slice(25).map((run) => run.id));
    expect(await page.getByRole("button", { name: "Older runs" }).isDisabled()).toBe(true);
    await page.getByRole("button", { name: "Newer runs" }).click();
    await page.locator(`tr[data-run="${all[0]?.id}"]`).waitFor();
  });

  it("does not move what it shows while a page loads: layout shift below 0.1 on every page", async () => {
    const shifts: Record<string, number> = {};
    for (const path of [
      "/ui/",
      `/ui/runs/${demoRunId}`,
      "/ui/overview",
      "/ui/skills",
      "/ui/skills/skill_demo_shop_order",
      "/ui/webhooks",
      "/ui/secrets",
      "/ui/keys",
    ]) {
      await page.goto(`${server.origin}${path}`);
      await page.locator("main h1").first().waitFor();
      // Until what loads has come: nothing says it is loading any more, and a moment more.
      await expect.poll(() => page.getByText(/^Loading /).count()).toBe(0);
      await page.waitForTimeout(1_000);
      // The layout shifts Chromium recorded since the page opened (none after an input counts).
      shifts[path] = await page.evaluate(
        () =>
          new Promise<number>((resolve) => {
            new PerformanceObserver((list) => {
              let total = 0;
              for (const entry of list.getEntries() as (PerformanceEntry & {
                value: number;
                hadRecentInput: boolean;
              })[]) {
                if (!entry.hadRecentInput) total += entry.value;
              }
              resolve(total);
            }).observe({ type: "layout-shift", buffered: true });
            // No entry at all: nothing moved.
            setTimeout(() => resolve(0), 500);
          }),
      );
    }
    for (const [path, shift] of Object.entries(shifts)) expect(shift, path).toBeLessThan(0.1);
  });

  it("fits a phone's width: no page scrolls sideways", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const path of [
        "/ui/",
        `/ui/runs/${demoRunId}`,
        "/ui/skills/skill_demo_shop_order",
        "/ui/webhooks",
        "/ui/overview",
        "/ui/secrets",
        "/ui/keys",
        "/ui/schedules",
        "/ui/profiles",
        "/ui/agents",
      ]) {
        await page.goto(`${server.origin}${path}`);
        await page.locator("main h1").first().waitFor();
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        expect(overflow, path).toBeLessThanOrEqual(0);
        if (path.startsWith("/ui/runs/")) await shot("phone-run");
        if (path === "/ui/") {
          // Each run's id on a line or two, not a character a line.
          const id = page.locator("tr[data-run] .sub.mono").first();
          await id.waitFor();
          const shape = await id.evaluate((span) => ({
            width: span.getBoundingClientRect().width,
            lines: Math.round(
              span.getBoundingClientRect().height /
                Number.parseFloat(getComputedStyle(span).lineHeight),
            ),
          }));
          expect(shape.width).toBeGreaterThan(250);
          expect(shape.lines).toBeLessThanOrEqual(2);
          await shot("phone-runs");
        }
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 720 });
    }
  });

  it("showed no page with a problem axe finds against WCAG 2.1 A and AA", () => {
    expect(inaccessible).toEqual({});
  });

  it("loaded nothing the Content-Security-Policy refuses, on any page above", () => {
    expect(refused).toEqual([]);
  });
});
