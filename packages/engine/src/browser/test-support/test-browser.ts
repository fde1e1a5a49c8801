import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRunFiles, type RunFiles } from "../../files/run-files.js";
import { LOCAL_TEST_NETWORK } from "../../network/test-support/local-network.js";
import { findChromium } from "../find-chromium.js";
import { createRunBrowser } from "../run-browser.js";
import type { RunBrowser, RunBrowserOptions, VideoOptions } from "../types.js";
import { chromiumProcesses } from "./chromium-processes.js";
import { runSkill } from "./run-skill.js";

let made = 0;

/** A run browser of its own (never shared, so a leak shows), its folder and its processes. */
export interface TestBrowser {
  browser: RunBrowser;
  /** What its processes are tagged with. */
  tag: string;
  /** Holds `video.webm` and `screenshots/`. */
  dir: string;
  videoPath: string;
  /** The run's files, kept in `dir/files`. */
  files: RunFiles;
  filesDir: string;
  processes: ReturnType<typeof chromiumProcesses>;
  /** Closes the browser (again) and removes the folder. */
  dispose(): Promise<void>;
}

/** Options as for createRunBrowser; `video` is added to (`false`: none) the default recording. */
export type TestBrowserOptions = Omit<Partial<RunBrowserOptions>, "video"> & {
  video?: Partial<VideoOptions> | false;
};

/** A run browser that records to a temporary folder, its processes tagged for counting. */
export async function testBrowser(options: TestBrowserOptions = {}): Promise<TestBrowser> {
  const { video, ...overrides } = options;
  const dir = await mkdtemp(join(tmpdir(), "skillrun-browser-test-"));
  made += 1;
  const tag = `test-${process.pid}-${made}-${Date.now()}`;
  const videoPath = join(dir, "video.webm");
  const filesDir = join(dir, "files");
  const browser = createRunBrowser({
    executablePath: () => findChromium(process.env),
    tag,
    // The fixture site is on loopback; tests of the guard pass their own policy.
    network: LOCAL_TEST_NETWORK,
    ...overrides,
    ...(video === false ? {} : { video: { path: videoPath, ...video } }),
  });
  return {
    browser,
    tag,
    dir,
    videoPath,
    files: createRunFiles({ dir: filesDir }),
    filesDir,
    processes: chromiumProcesses(tag),
    async dispose() {
      await browser.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A test browser without a video whose page shows the fixture site's static page (at `base`):
 * Chromium up, its zygotes and a renderer with it.
 */
export async function testBrowserOnAPage(base: string): Promise<TestBrowser> {
  const test = await testBrowser({ video: false });
  const result = await runSkill('- goto: "{{ inputs.base }}/static"\n', {
    base,
    browser: test.browser.access,
  });
  if (result.outcome !== "finished") {
    await test.dispose();
    throw new Error(`the static page did not open: ${JSON.stringify(result)}`);
  }
  return test;
}
