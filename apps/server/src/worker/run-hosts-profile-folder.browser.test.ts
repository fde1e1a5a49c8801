import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_ENGINE_LIMITS, parseSkillDefinition, type RunJob } from "@skillrun/engine";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostedRunHandlers } from "../../test/support/hosted-run-handlers.js";
import { makeProfileFolder, startCookieSite } from "../../test/support/profile-folder.js";
import { RunHosts } from "./run-hosts.js";

/**
 * A run whose browser starts on the machine's profile folder (an agent's --profile-dir) and whose
 * skill saves a browser profile: in a real run process, its storage (the user's sessions) is not
 * sent for saving, and the run's problems say why (docs/decisions/0068-local-profile-folders.md).
 */

let site: Awaited<ReturnType<typeof startCookieSite>>;
let dir: string;
let work: string;
const hosts = new RunHosts(
  {
    size: 1,
    memoryMb: 1024,
    stopGraceMs: 500,
    closeMs: 30_000,
    env: { PATH: process.env.PATH ?? "" },
  },
  pino({ level: "silent" }),
);

beforeAll(async () => {
  site = await startCookieSite();
  dir = await mkdtemp(join(tmpdir(), "skillrun-host-profile-test-"));
  work = await mkdtemp(join(tmpdir(), "skillrun-host-work-test-"));
  await makeProfileFolder(dir, site.base);
  hosts.start();
  await hosts.ready(60_000);
});
afterAll(async () => {
  await hosts.close();
  await site?.close();
  await rm(dir, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

const definition = parseSkillDefinition(
  `id: s
name: S
inputs: [{ json_key: site, data_type: string }]
profile: { name: acme, save: always }
steps:
  - goto: "{{ inputs.site }}/"
  - extract: { selector: "#cookies", save_as: cookies }`,
  "s.yaml",
);

describe("a run on a profile folder whose skill saves a browser profile", {
  timeout: 120_000,
}, () => {
  it("sends no storage for the profile, and says why", async () => {
    const host = hosts.reserve();
    if (host === undefined) throw new Error("no run process is ready");
    const job: RunJob = {
      definition,
      skills: {},
      inputs: { site: site.base },
      secrets: {},
      run: { id: "run_profile_folder", skill_id: "s", owner: "", attempt: 1 },
      limits: DEFAULT_ENGINE_LIMITS,
      network: { allowPrivate: true },
      clockOffsetMs: 0,
      files: { dir: join(work, "files"), existing: [] },
      profile: { state: null, save: "always", maxBytes: 512 * 1024 },
      browser: {
        chromium: process.env,
        videoPath: join(work, "video.webm"),
        tag: "run_profile_folder",
        user: "nobody",
        memoryLimitBytes: 2 * 1024 ** 3,
        profileFolder: { path: dir, writable: false },
      },
    };
    const problems: string[] = [];
    const saved: string[] = [];
    const hosted = hosts.execute(
      host,
      job,
      hostedRunHandlers({
        onProblem: (message) => problems.push(message),
        onProfile: (json) => saved.push(json),
      }),
      new AbortController().signal,
    );
    const outcome = await hosted.outcome;
    await hosted.closed;
    expect(outcome).toMatchObject({
      type: "result",
      result: { outcome: "finished", data: { cookies: "session=user" } },
    });
    expect(saved).toEqual([]);
    expect(problems).toContain(
      "the browser profile was not saved: the browser started on this machine's profile folder (--profile-dir), whose sessions are not sent to the server",
    );
  });
});
