import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunSession } from "../src/domain/api-types.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { makeProfileFolder, startCookieSite } from "./support/profile-folder.js";
import { RunClient } from "./support/runs.js";
import { type SkillrunProcess, startAgentProcess } from "./support/skillrun-process.js";

/**
 * A real `skillrun agent --profile-dir`: its client runs' Chromium starts on a copy of the
 * user's profile folder, signed in where the user is.
 */

const READ_COOKIES = `
id: skill_agent_cookies
name: Agent cookies
inputs:
  - { json_key: site, data_type: string }
steps:
  - goto: "{{ inputs.site }}/"
  - extract: { selector: "#cookies", save_as: cookies }
`;

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The runs' copies of profile folders in the temporary folder now. */
async function copies(): Promise<string[]> {
  return (await readdir(tmpdir())).filter((name) => name.startsWith("skillrun-profile-"));
}

describe("an agent with a profile folder", () => {
  it("runs a client skill that finds the profile's cookie, and leaves no copy behind", async () => {
    const site = await startCookieSite();
    cleanups.push(() => site.close());
    const dir = await mkdtemp(join(tmpdir(), "skillrun-agent-profile-test-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await makeProfileFolder(dir, site.base);

    const server: TestServer = await startTestServer({ worker: { concurrency: 1, pollMs: 50 } });
    cleanups.push(() => server.close());
    await server.importSkillYaml("alice", READ_COOKIES);
    const client = new RunClient(server.origin, await server.keyFor("alice"));
    const agentKey = await server.keyFor("alice", ["agent"]);
    const agent: SkillrunProcess = await startAgentProcess(server.origin, agentKey, {
      name: "laptop",
      args: ["--profile-dir", dir],
    });
    cleanups.push(() => agent.stop("SIGKILL"));
    expect(await agent.printed(/takes client runs/)).toContain(
      `on copies of the browser profile folder ${dir}`,
    );

    const before = await copies();
    const started = await call(server.origin, "POST", "/v1/run/", {
      key: client.key,
      json: { skill_id: "skill_agent_cookies", environment: "client", inputs: { site: site.base } },
    });
    expect(started.status, started.text).toBe(200);
    const run = started.body as RunSession;
    const ended = await client.ended(run.id, 60_000);
    expect(ended.state, JSON.stringify(ended.data)).toBe("finish");
    expect(ended.data).toMatchObject({ cookies: "session=user" });
    expect((await copies()).filter((name) => !before.includes(name))).toEqual([]);
  }, 180_000);
});
