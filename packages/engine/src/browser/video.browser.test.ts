import { stat } from "node:fs/promises";
import { basename } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listProcesses } from "./processes.js";
import { probeVideo } from "./test-support/ffprobe.js";
import { type FixtureSite, startFixtureSite } from "./test-support/fixture-site.js";
import { runSkill } from "./test-support/run-skill.js";
import { testBrowser } from "./test-support/test-browser.js";
import { frameColour, lastFrameColour } from "./test-support/video-frames.js";

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(() => site.close());

describe("the run's video", () => {
  it("lasts as long as the browser was open, even on a still page, at the viewport's size", async () => {
    const test = await testBrowser();
    try {
      // Chromium is up once the goto has finished; when it started is not known more closely.
      const goto = { started: 0, finished: 0 };
      const result = await runSkill(
        `
- goto: "{{ inputs.base }}/static"
- wait: 2s
- extract: { selector: "#title", save_as: title }
`,
        {
          base: site.base,
          browser: test.browser.access,
          onEvent: (event) => {
            if (event.type === "step_started" && event.step.kind === "goto")
              goto.started = Date.now();
            if (event.type === "step_finished" && event.step.kind === "goto") {
              goto.finished = Date.now();
            }
          },
        },
      );
      expect(result.outcome).toBe("finished");
      expect(test.processes.count()).toBeGreaterThan(0);
      const closeCalled = Date.now();
      const closed = await test.browser.close();
      const closeReturned = Date.now();
      expect(test.processes.count()).toBe(0);
      expect(closed.problems).toEqual([]);
      expect(closed.video).toMatchObject({ path: test.videoPath, width: 1280, height: 720 });

      const probed = await probeVideo(test.videoPath);
      expect({ width: probed.width, height: probed.height }).toEqual({ width: 1280, height: 720 });
      expect(probed.durationS).toBeGreaterThanOrEqual(2);
      // From the first frame (while the goto ran, or soon after) to the close.
      expect(probed.lastFrameS).toBeLessThanOrEqual((closeReturned - goto.started) / 1000);
      expect(probed.durationS).toBeGreaterThanOrEqual((closeCalled - goto.finished) / 1000 - 0.5);
      // Never more than 10 frames a second (the default), whatever the page does.
      expect(probed.frames).toBeLessThanOrEqual(probed.durationS * 10 + 1);
      expect(closed.video?.frames).toBe(probed.frames);
      // Within a few milliseconds of the time the recorder gave it: ffmpeg may place it a little off.
      expect(
        Math.abs((closed.video?.durationMs ?? 0) - probed.lastFrameS * 1000),
      ).toBeLessThanOrEqual(10);
    } finally {
      await test.dispose();
    }
  }, 30_000);

  it("is encoded by an ffmpeg leading a session of its own, apart from the run's process", async () => {
    const test = await testBrowser();
    try {
      const result = await runSkill(`- goto: "{{ inputs.base }}/static"\n`, {
        base: site.base,
        browser: test.browser.access,
      });
      expect(result.outcome).toBe("finished");
      const all = listProcesses();
      const own = all.find((entry) => entry.pid === process.pid);
      const encoders = all.filter(
        (entry) =>
          entry.ppid === process.pid && basename(entry.cmdline.split("\0")[0] ?? "") === "ffmpeg",
      );
      expect(encoders).toHaveLength(1);
      // Where sessions are grouped for the CPU, its finish does not share this process's part.
      expect(encoders[0]?.sid).toBe(encoders[0]?.pid);
      expect(encoders[0]?.sid).not.toBe(own?.sid);
      const closed = await test.browser.close();
      expect(closed.video?.path).toBe(test.videoPath);
    } finally {
      await test.dispose();
    }
  }, 30_000);

  it("a page that does not change for 3 s adds no frames, yet the video lasts those 3 s", async () => {
    const test = await testBrowser();
    try {
      let stillFrom = 0;
      let framedBeforeStill = false;
      // The video's clock starts at its first frame, and what happens before lands at 0: the
      // second lets the page's first frame come (on a busy machine it may come after the goto)
      // so that the still stretch starts on the video's clock.
      const result = await runSkill(
        `
- goto: "{{ inputs.base }}/static"
- wait: 1s
- id: still
  wait: 3s
`,
        {
          base: site.base,
          browser: test.browser.access,
          onEvent: (event) => {
            if (event.type === "step_started" && event.step.id === "still") {
              stillFrom = test.browser.access.videoOffsetMs() ?? 0;
              framedBeforeStill = test.browser.liveFrame() !== undefined;
            }
          },
        },
      );
      expect(result.outcome).toBe("finished");
      expect(framedBeforeStill).toBe(true);
      const closed = await test.browser.close();
      expect(closed.problems).toEqual([]);
      const probed = await probeVideo(test.videoPath);
      // Its last frame, the page again when the browser closed, comes after the still 3 s.
      expect(probed.lastFrameS).toBeGreaterThanOrEqual(stillFrom / 1000 + 3);
      // Within a few milliseconds of the time the recorder gave it: ffmpeg may place it a little off.
      expect(
        Math.abs((closed.video?.durationMs ?? 0) - probed.lastFrameS * 1000),
      ).toBeLessThanOrEqual(10);
      // A few frames while the page loads and the last one again at the end; at a fixed 10 fps
      // there would be more than 30.
      expect(probed.frames).toBeLessThanOrEqual(8);
      expect(closed.video?.frames).toBe(probed.frames);
      // Its end plays, and shows the page as the middle of the still stretch did (within what
      // coding blurs).
      const end = await lastFrameColour(test.videoPath);
      const middle = await frameColour(test.videoPath, stillFrom / 1000 + 1.5);
      expect(end.every((value, i) => Math.abs(value - (middle[i] as number)) <= 8)).toBe(true);
    } finally {
      await test.dispose();
    }
  }, 30_000);

  it("an aborted run still leaves a playable video, and no Chromium", async () => {
    const recorded = await testBrowser({ viewport: { width: 640, height: 480 } });
    try {
      const controller = new AbortController();
      const result = await runSkill(
        `
- goto: "{{ inputs.base }}/static"
- id: pause
  wait: 10s
`,
        {
          base: site.base,
          browser: recorded.browser.access,
          signal: controller.signal,
          onEvent: (event) => {
            if (event.type === "step_started" && event.step.id === "pause") {
              setTimeout(() => controller.abort(new Error("cancelled")), 1000);
            }
          },
        },
      );
      expect(result.outcome).toBe("aborted");
      expect(result.outcome === "aborted" && result.step?.id).toBe("pause");
      const closed = await recorded.browser.close();
      expect(recorded.processes.count()).toBe(0);
      const probed = await probeVideo(recorded.videoPath);
      expect(probed).toMatchObject({ width: 640, height: 480 });
      expect(probed.durationS).toBeGreaterThanOrEqual(1);
      expect(closed.video?.frames).toBe(probed.frames);
    } finally {
      await recorded.dispose();
    }
  }, 30_000);

  it("without ffmpeg the run still finishes; there is no video, and a problem says why", async () => {
    const noFfmpeg = await testBrowser({
      viewport: { width: 640, height: 480 },
      video: { ffmpegPath: "/nonexistent/ffmpeg" },
    });
    try {
      const result = await runSkill(`- goto: "{{ inputs.base }}/static"\n`, {
        base: site.base,
        browser: noFfmpeg.browser.access,
      });
      expect(result.outcome).toBe("finished");
      const closed = await noFfmpeg.browser.close();
      expect(closed).toEqual({
        video: null,
        problems: [
          "video not recorded: ffmpeg was not found (/nonexistent/ffmpeg); install Debian's ffmpeg package",
        ],
      });
      await expect(stat(noFfmpeg.videoPath)).rejects.toThrow(/ENOENT/);
      await expect(stat(`${noFfmpeg.videoPath}.part`)).rejects.toThrow(/ENOENT/);
      expect(noFfmpeg.processes.count()).toBe(0);
    } finally {
      await noFfmpeg.dispose();
    }
  }, 30_000);
});
