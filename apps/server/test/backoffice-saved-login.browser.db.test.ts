import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_TOTP_KEY } from "../src/demo/backoffice-login.js";
import { SESSION_TTL_MS } from "../src/demo/backoffice-sessions.js";
import { DEMO_OTP_SECRET } from "../src/demo/prepare-demo.js";
import type { RunEvent, RunSession } from "../src/domain/api-types.js";
import { paths } from "../src/paths.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { RunClient } from "./support/runs.js";

/**
 * skills/backoffice-saved-login.yaml end to end, in real Chromium against the server's own demo
 * back office: the first run signs in with the password and the one-time code and saves the
 * session as the profile backoffice-demo; the next reaches the invoices on the saved session,
 * without the form; once the back office has let that session expire (the server's clock moved
 * past the session's lifetime), the next run falls back to the form and saves the new session.
 */

const SKILLS = ["backoffice-login.yaml", "backoffice-saved-login.yaml"].map((file) =>
  readFileSync(join(paths.skills, file), "utf8"),
);

// The server's clock (the back office's sessions expire by it), moved forward by the expiry step.
let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };

let server: TestServer;
let alice: RunClient;

beforeAll(async () => {
  server = await startTestServer({ worker: { concurrency: 1 }, clock });
  await server.importSkillYaml("alice", ...SKILLS);
  // As `npm start` does for its demo owner: the sign-in's second factor reads this secret.
  await server.repos.secrets.put("alice", DEMO_OTP_SECRET, DEMO_TOTP_KEY);
  alice = new RunClient(server.origin, await server.keyFor("alice"));
});

afterAll(async () => {
  await server?.close();
});

async function profile(): Promise<{ status: number; body: Record<string, unknown> }> {
  const reply = await call(server.origin, "GET", "/v1/profile/backoffice-demo", {
    key: alice.key,
  });
  return { status: reply.status, body: reply.body as Record<string, unknown> };
}

async function signIn(): Promise<{ run: RunSession; events: RunEvent[] }> {
  const { id } = await alice.start("skill_backoffice_saved_login", {
    base_url: `${server.origin}/demo/backoffice`,
    password: "demo-password",
  });
  const run = await alice.ended(id, 60_000);
  expect(run.state, JSON.stringify(run.data)).toBe("finish");
  return { run, events: await alice.events(id) };
}

/** What happened to the `login` call: `ran` when its steps ran, else how the step ended. */
function loginOf(events: RunEvent[]): string {
  const login = events.filter((event) => event.step?.id === "login").map((event) => event.type);
  const inside = events.some((event) => event.step?.label?.startsWith("login › ") === true);
  return inside ? "ran" : login.join(",");
}

function messagesOf(events: RunEvent[]): string[] {
  return events.map((event) => event.message ?? "");
}

const SIGNED_IN = {
  user: "demo",
  first_invoice: "INV-1001",
};

describe("skill_backoffice_saved_login", { timeout: 180_000 }, () => {
  it("signs in with password and code once, reuses the saved session, and signs in again once it has expired", async () => {
    expect((await profile()).status).toBe(404);

    // Run 1: no profile yet, so the back office shows its form; the run signs in and saves.
    const first = await signIn();
    expect(first.run.data).toEqual({ ...SIGNED_IN, used_saved_session: false });
    expect(loginOf(first.events)).toBe("ran");
    expect(messagesOf(first.events)).toContain(
      "browser profile backoffice-demo has no saved version: the browser starts without one; saved back if the run finishes",
    );
    expect((await profile()).body).toMatchObject({
      name: "backoffice-demo",
      version: 1,
      saved_by_run: first.run.id,
      domains: [{ domain: "127.0.0.1", cookies: 1 }],
    });

    // Run 2: the saved session is live: the invoices at once, the login call skipped.
    const second = await signIn();
    expect(second.run.data).toEqual({ ...SIGNED_IN, used_saved_session: true });
    expect(loginOf(second.events)).toBe("step_skipped");
    expect(messagesOf(second.events)).toContain(
      "the browser starts with profile backoffice-demo, version 1 (1 cookies); saved back if the run finishes",
    );
    expect((await profile()).body).toMatchObject({ version: 2, saved_by_run: second.run.id });

    // The back office ends sessions 30 minutes after the sign-in; the browser still sends the
    // cookie (it expires by the browser's own clock), the back office no longer knows it.
    offsetMs = SESSION_TTL_MS + 60_000;

    // Run 3: starts with the saved, now expired session, falls back to the form, saves anew.
    const third = await signIn();
    expect(third.run.data).toEqual({ ...SIGNED_IN, used_saved_session: false });
    expect(loginOf(third.events)).toBe("ran");
    expect(messagesOf(third.events)).toContain(
      "the browser starts with profile backoffice-demo, version 2 (1 cookies); saved back if the run finishes",
    );
    expect((await profile()).body).toMatchObject({ version: 3, saved_by_run: third.run.id });

    // The password is a secret input: sealed, in no answer or event.
    for (const { run, events } of [first, second, third]) {
      expect(run.inputs).toMatchObject({ password: "***" });
      expect(JSON.stringify([run, events])).not.toContain("demo-password");
    }
  });
});
