import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent, RunSession } from "../src/domain/api-types.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { loggedLines } from "./support/log-lines.js";
import { type LoginSite, signInSkill, startLoginSite } from "./support/login-site.js";
import { RunClient } from "./support/runs.js";

/**
 * Browser profiles end to end, in real Chromium through the API and the in-process worker,
 * against a loopback site with a sign-in form and a session cookie: a run signs in and saves, the
 * next starts signed in, runs that save one profile never overlap, and no session value reaches
 * an answer, the step log or a log line.
 */

// The wait makes two runs side by side overlap, were they allowed to.
const SIGN_IN = signInSkill("skill_acme", "1s");

// Keeps a large localStorage, saved whatever the ending.
const BIG = `
id: skill_big
name: Big
inputs:
  - { json_key: site, data_type: string }
profile: { name: big, save: always }
steps:
  - goto: "{{ inputs.site }}/big"
  - wait: 200ms
`;

let site: LoginSite;
let server: TestServer;
let alice: RunClient;
const { logger, lines } = loggedLines();

beforeAll(async () => {
  site = await startLoginSite();
  server = await startTestServer({
    worker: { concurrency: 2 },
    logger,
    env: { PROFILE_MAX_BYTES: "2048" },
  });
  await server.importSkillYaml("alice", SIGN_IN, BIG);
  alice = new RunClient(server.origin, await server.keyFor("alice"));
});

afterAll(async () => {
  await server?.close();
  await site?.close();
});

async function profile(name: string): Promise<Record<string, unknown>> {
  const reply = await call(server.origin, "GET", `/v1/profile/${name}`, {
    key: await server.keyFor("alice"),
  });
  expect(reply.status, reply.text).toBe(200);
  return reply.body as Record<string, unknown>;
}

/** Fails when any session value the site handed out is in `text`. */
function expectNoSession(text: string): void {
  for (const value of site.sessionValues()) expect(text).not.toContain(value);
}

function claimedAt(events: RunEvent[]): number {
  const claimed = events.find((event) => event.type === "run_claimed");
  return Date.parse(claimed?.at ?? "");
}

describe("a browser profile", { timeout: 120_000 }, () => {
  it("keeps a sign-in: run 1 signs in and saves, run 2 reaches the signed-in page without the form", async () => {
    const inputs = { site: site.base, user: "ann" };
    const first = await alice.ended((await alice.start("skill_acme", inputs)).id, 60_000);
    expect(first).toMatchObject({
      state: "finish",
      data: { signed_in_by_form: true, who: "Signed in as ann" },
    });
    expect(site.signIns()).toBe(1);
    const saved = await profile("acme-ann");
    expect(saved).toMatchObject({
      name: "acme-ann",
      version: 1,
      cookies: 1,
      saved_by_run: first.id,
      domains: [{ domain: "127.0.0.1", cookies: 1 }],
      origins: [{ origin: site.base, items: 1 }],
    });
    expect(
      (saved.domains as { earliest_expiry: string | null }[])[0]?.earliest_expiry,
    ).not.toBeNull();

    const second = await alice.ended((await alice.start("skill_acme", inputs)).id, 60_000);
    expect(second).toMatchObject({
      state: "finish",
      data: { signed_in_by_form: false, who: "Signed in as ann" },
    });
    expect(site.signIns()).toBe(1);
    expect(await profile("acme-ann")).toMatchObject({ version: 2, saved_by_run: second.id });

    const messages = (await alice.events(second.id)).map((event) => event.message ?? "");
    expect(messages).toContain(
      "the browser starts with profile acme-ann, version 1 (1 cookies); saved back if the run finishes",
    );
    expect(
      messages.some((m) =>
        /^browser profile acme-ann saved as version 2 \(1 cookies, \d+ bytes\)$/.test(m),
      ),
    ).toBe(true);

    // Never a session value: not in the answers, the step logs, the list, or a log line.
    const list = await call(server.origin, "GET", "/v1/profile/list", {
      key: await server.keyFor("alice"),
    });
    expectNoSession(list.text);
    for (const run of [first, second]) {
      expectNoSession(JSON.stringify(await alice.events(run.id)));
      expectNoSession(JSON.stringify(await alice.get(run.id)));
    }
    expect(site.sessionValues()).toHaveLength(1);
    expect(lines.some((line) => String(line.msg).startsWith("run ended: finish"))).toBe(true);
    expectNoSession(JSON.stringify(lines));
  });

  it("runs two saving runs of one profile one after the other; the second starts signed in", async () => {
    const inputs = { site: site.base, user: "bob" };
    const before = site.signIns();
    const a = await alice.start("skill_acme", inputs);
    const b = await alice.start("skill_acme", inputs);
    // Two slots, but one profile: while one runs, the other waits for it.
    const waiting = await alice.waitFor(
      b.id,
      (run) => run.waiting_for === "profile" || run.state !== null,
    );
    const firstUp = waiting.waiting_for === "profile" ? a.id : b.id;
    const ended: RunSession[] = [await alice.ended(a.id, 60_000), await alice.ended(b.id, 60_000)];
    expect(ended.map((run) => run.state)).toEqual(["finish", "finish"]);
    const [first, second] = firstUp === a.id ? ended : [ended[1], ended[0]];
    expect(first?.data).toMatchObject({ signed_in_by_form: true });
    expect(second?.data).toMatchObject({ signed_in_by_form: false });
    expect(site.signIns()).toBe(before + 1);
    // Never side by side: the second was claimed after the first had ended.
    const secondClaimed = claimedAt(await alice.events(second?.id as string));
    expect(secondClaimed).toBeGreaterThanOrEqual(Date.parse(first?.end_time as string));
    expect(await profile("acme-bob")).toMatchObject({ version: 2, saved_by_run: second?.id });
  });

  it("is not saved past PROFILE_MAX_BYTES: the run ends as it would have, its step log says why", async () => {
    const run = await alice.ended((await alice.start("skill_big", { site: site.base })).id, 60_000);
    expect(run.state).toBe("finish");
    const messages = (await alice.events(run.id)).map((event) => event.message ?? "");
    expect(
      messages.some((m) =>
        /^the browser profile was not saved: the browser's storage is \d+ bytes as JSON, more than PROFILE_MAX_BYTES \(2048\)$/.test(
          m,
        ),
      ),
    ).toBe(true);
    const reply = await call(server.origin, "GET", "/v1/profile/big", {
      key: await server.keyFor("alice"),
    });
    expect(reply.status).toBe(404);
  });
});
