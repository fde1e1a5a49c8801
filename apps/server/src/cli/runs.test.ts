import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skillrunInProcess } from "../../test/support/cli-in-process.js";
import { RunClient } from "../../test/support/runs.js";
import { TEST_SECRETS_KEY } from "../test-support/test-secrets.js";
import { startTestServer, type TestServer } from "../test-support/test-server.js";

// `skillrun runs log`, in this process through the command line's entry, on a test server's
// database, for a run its worker ran.
let server: TestServer;
let runId: string;
const saved = {
  DATABASE_URL: process.env.DATABASE_URL,
  SECRETS_KEY: process.env.SECRETS_KEY,
  LOG_LEVEL: process.env.LOG_LEVEL,
};

const PRICED = `
id: skill_priced
name: Priced
steps:
  - set: { price: "12.99" }
  - log: "checked\\n  twice"
  - fail: "too dear at {{ data.price }}"
`;

beforeAll(async () => {
  server = await startTestServer({ worker: { concurrency: 1 } });
  process.env.DATABASE_URL = server.databaseUrl;
  process.env.SECRETS_KEY = TEST_SECRETS_KEY;
  process.env.LOG_LEVEL = "silent";
  await server.importSkillYaml("alice", PRICED);
  const alice = new RunClient(server.origin, await server.keyFor("alice"));
  runId = (await alice.start("skill_priced")).id;
  await alice.ended(runId, 30_000);
});

afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await server?.close();
});

const skillrun = skillrunInProcess;

describe("skillrun runs log", () => {
  it("prints a run's step log, one line per event, each step's detail after its message", async () => {
    const printed = await skillrun("runs", "log", runId, "--owner", "alice");
    expect(printed.code, printed.stderr).toBe(0);
    const lines = printed.stdout.trimEnd().split("\n");
    const at = "\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z";
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(`^${at}  step 1 \\(set\\)  step_finished  — price = "12\\.99"$`),
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(`^${at}  step 2 \\(log\\)  step_finished  — checked twice$`),
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^${at}  step 3 \\(fail\\)  step_failed  too dear at 12\\.99  — too dear at 12\\.99$`,
        ),
      ),
    );
    expect(lines.at(-1)).toMatch(
      new RegExp(`^${at}  step 3 \\(fail\\)  run_failed  step 3 \\(fail\\): too dear at 12\\.99$`),
    );
    expect(lines[0]).toMatch(new RegExp(`^${at}  run  run_claimed`));
  });

  it("says so for a run the owner does not have, and needs an owner", async () => {
    const foreign = await skillrun("runs", "log", runId, "--owner", "bob");
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toBe(`skillrun: owner "bob" has no run "${runId}"\n`);
    const ownerless = await skillrun("runs", "log", runId);
    expect(ownerless.code).toBe(2);
    expect(ownerless.stderr).toContain("runs log needs --owner <owner>");
  });
});
