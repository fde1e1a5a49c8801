import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent, RunSession } from "../src/domain/api-types.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { type LoginSite, signInSkill, startLoginSite } from "./support/login-site.js";
import { RunClient } from "./support/runs.js";
import { type SkillrunProcess, startAgentProcess } from "./support/skillrun-process.js";

/**
 * A client run's saved browser profile (`profile:`) on a real `skillrun agent` in real Chromium,
 * on both databases: the first run signs in with the form and saves, the next starts signed in
 * with the version the server handed it and saves the one after; no session value reaches an
 * answer or the step log.
 */

const SIGN_IN = signInSkill("skill_agent_acme");

let site: LoginSite;
let server: TestServer;
let agent: SkillrunProcess;
let client: RunClient;

beforeAll(async () => {
  site = await startLoginSite();
  // No cloud worker: only the agent can take the runs.
  server = await startTestServer();
  await server.importSkillYaml("alice", SIGN_IN);
  client = new RunClient(server.origin, await server.keyFor("alice"));
  agent = await startAgentProcess(server.origin, await server.keyFor("alice", ["agent"]), {
    name: "desk",
  });
}, 60_000);

afterAll(async () => {
  await agent?.stop("SIGKILL");
  await server?.close();
  await site?.close();
});

async function signIn(): Promise<{ run: RunSession; log: RunEvent[] }> {
  const started = await call(server.origin, "POST", "/v1/run/", {
    key: client.key,
    json: {
      skill_id: "skill_agent_acme",
      environment: "client",
      inputs: { site: site.base, user: "ann" },
    },
  });
  expect(started.status, started.text).toBe(200);
  const run = await client.ended((started.body as RunSession).id, 60_000);
  return { run, log: await client.events(run.id) };
}

const messages = (log: RunEvent[]) => log.map((event) => event.message ?? "");

describe("a client run's browser profile", () => {
  it("is signed in with once, saved, and started with by the next run on the agent", async () => {
    const first = await signIn();
    expect(first.run.state, JSON.stringify(first.run.data)).toBe("finish");
    expect(first.run.data).toMatchObject({ signed_in_by_form: true, who: "Signed in as ann" });
    expect(messages(first.log)).toContain(
      "browser profile acme-ann has no saved version: the browser starts without one; saved back if the run finishes",
    );
    expect(messages(first.log)).toContainEqual(
      expect.stringMatching(
        /^browser profile acme-ann saved as version 1 \(1 cookies, \d+ bytes\)$/,
      ),
    );

    const second = await signIn();
    expect(second.run.state, JSON.stringify(second.run.data)).toBe("finish");
    expect(second.run.data).toMatchObject({ signed_in_by_form: false, who: "Signed in as ann" });
    expect(site.signIns()).toBe(1);
    expect(messages(second.log)).toContain(
      "the browser starts with profile acme-ann, version 1 (1 cookies); saved back if the run finishes",
    );
    expect(messages(second.log)).toContainEqual(
      expect.stringMatching(/^browser profile acme-ann saved as version 2 /),
    );

    const profile = await call(server.origin, "GET", "/v1/profile/acme-ann", { key: client.key });
    expect(profile.body).toMatchObject({ name: "acme-ann", version: 2 });
    const [session] = site.sessionValues();
    expect(session).toBeDefined();
    for (const seen of [first, second]) {
      expect(JSON.stringify(seen)).not.toContain(session as string);
    }
    expect(profile.text).not.toContain(session as string);
  }, 180_000);
});
