import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skillrunInProcess } from "../../test/support/cli-in-process.js";
import { skillRecord } from "../../test/support/http.js";
import { newSchedule } from "../../test/support/schedules.js";
import { TEST_SECRETS_KEY } from "../test-support/test-secrets.js";
import { startTestServer, type TestServer } from "../test-support/test-server.js";

// `skillrun schedules …`, in this process through the command line's entry, on a test server's
// database (the command reads DATABASE_URL and SECRETS_KEY as in a shell).
let server: TestServer;
let id: string;
const saved = {
  DATABASE_URL: process.env.DATABASE_URL,
  SECRETS_KEY: process.env.SECRETS_KEY,
  LOG_LEVEL: process.env.LOG_LEVEL,
};

beforeAll(async () => {
  server = await startTestServer();
  process.env.DATABASE_URL = server.databaseUrl;
  process.env.SECRETS_KEY = TEST_SECRETS_KEY;
  process.env.LOG_LEVEL = "silent";
  const key = await server.keyFor("alice");
  await server.importSkills("alice", [skillRecord("skill_nightly", "Nightly")]);
  id = await newSchedule(server, key, {
    skill_id: "skill_nightly",
    cron: "0 2 * * *",
    timezone: "Europe/Berlin",
  });
});

afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await server?.close();
});

const skillrun = skillrunInProcess;

describe("skillrun schedules", () => {
  it("lists, pauses, resumes, triggers and shows ticks, then deletes", async () => {
    const listed = await skillrun("schedules", "list", "--owner", "alice");
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(
      new RegExp(
        `^${id}  skill_nightly  "0 2 \\* \\* \\*" Europe/Berlin  overlap skip  next \\S+T02:00:00\\.000\\+0[12]:00$`,
        "m",
      ),
    );
    expect((await skillrun("schedules", "pause", id, "--owner", "alice")).stdout).toBe(
      `Schedule ${id} paused.\n`,
    );
    expect((await skillrun("schedules", "list", "--owner", "alice")).stdout).toContain(
      "paused (requested)",
    );
    expect((await skillrun("schedules", "resume", id, "--owner", "alice")).code).toBe(0);
    const triggered = await skillrun("schedules", "trigger", id, "--owner", "alice");
    expect(triggered.stdout).toMatch(new RegExp(`^Queued run run_\\S+ of schedule ${id}\\.$`, "m"));
    const ticks = await skillrun("schedules", "ticks", id, "--owner", "alice");
    expect(ticks.stdout).toMatch(/^\S+\+0[12]:00 {2}fired manual {2}run run_\S+$/m);
    expect((await skillrun("schedules", "delete", id, "--owner", "alice")).code).toBe(0);
    const gone = await skillrun("schedules", "pause", id, "--owner", "alice");
    expect(gone).toMatchObject({ code: 1 });
    expect(gone.stderr).toContain(`owner "alice" has no schedule ${id}`);
    expect((await skillrun("schedules", "ticks", "--owner", "alice")).code).toBe(2);
  });
});
