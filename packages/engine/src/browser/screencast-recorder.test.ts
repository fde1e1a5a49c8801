import { execFile } from "node:child_process";
import { EventEmitter } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { BrowserContext, Page } from "playwright-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startScreencastRecorder } from "./screencast-recorder.js";
import { probeVideo } from "./test-support/ffprobe.js";
import { frameColour, lastFrameColour } from "./test-support/video-frames.js";

// Chromium on a loaded 2-core machine sends an animated page's frames slower than the rates
// asked for here, so these tests stand in for its screencast (a CDP session that sends frames
// as fast as told) and keep the rest real: the recorder, ffmpeg, ffprobe.

/** A CDP session whose screencast frames the test sends. */
class FakeScreencast extends EventEmitter {
  acks = 0;
  async send(method: string): Promise<object> {
    if (method === "Page.screencastFrameAck") this.acks += 1;
    return {};
  }
  async detach(): Promise<void> {}
  frame(jpeg: Buffer): void {
    this.emit("Page.screencastFrame", { data: jpeg.toString("base64"), sessionId: 1 });
  }
}

/** A small JPEG of one colour, made by ffmpeg. */
async function jpegOf(colour: string): Promise<Buffer> {
  const { stdout } = await promisify(execFile)(
    "ffmpeg",
    [
      ...["-v", "error", "-f", "lavfi", "-i", `color=c=${colour}:s=64x36`],
      ...["-frames:v", "1", "-f", "mjpeg", "-"],
    ],
    { encoding: "buffer" },
  );
  return stdout;
}

const isBlue = ([red, green, blue]: number[]) =>
  (blue as number) > 150 && (red as number) < 100 && (green as number) < 100;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "skillrun-recorder-test-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function recorder(fps: number) {
  const screencast = new FakeScreencast();
  const context = { newCDPSession: async () => screencast } as unknown as BrowserContext;
  const problems: string[] = [];
  const path = join(dir, "video.webm");
  const recording = await startScreencastRecorder(context, {} as Page, {
    path,
    fps,
    ffmpegPath: "ffmpeg",
    viewport: { width: 320, height: 180 },
    problem: (message) => problems.push(message),
  });
  return { screencast, recording, problems, path };
}

describe("the screencast recorder", () => {
  it("writes frames that come faster than its rate at most `fps` a second, the newest of each", async () => {
    const { screencast, recording, problems, path } = await recorder(10);
    const [red, blue] = await Promise.all([jpegOf("red"), jpegOf("blue")]);
    // A frame every 10 ms for a second: 100 frames, the last one blue.
    const started = Date.now();
    const until = started + 1000;
    let sent = 0;
    while (Date.now() < until) {
      screencast.frame(Date.now() + 20 >= until ? blue : red);
      sent += 1;
      await pause(10);
    }
    const video = await recording.stop();
    const stopped = Date.now();
    expect(problems).toEqual([]);
    expect(screencast.acks).toBe(sent);
    const probed = await probeVideo(path);
    expect(video?.frames).toBe(probed.frames);
    // A second at 10 a second, and the last frame once more at the end; far fewer than sent.
    expect(sent).toBeGreaterThan(30);
    expect(probed.frames).toBeLessThanOrEqual(probed.durationS * 10 + 2);
    // The video's clock is the recording's: no frame is pushed later than it came. (The
    // duration adds a length of the container's own to the last frame: see ProbedVideo.)
    expect(probed.durationS).toBeGreaterThanOrEqual(1);
    expect(probed.lastFrameS).toBeLessThanOrEqual((stopped - started) / 1000);
    // Within a few milliseconds of the time the recorder gave it: ffmpeg may place it a little off.
    expect(Math.abs((video?.durationMs ?? 0) - probed.lastFrameS * 1000)).toBeLessThanOrEqual(10);
    expect(isBlue(await lastFrameColour(path))).toBe(true);
  });

  it("keeps a frame the rate held back, and writes it before the video ends", async () => {
    const { screencast, recording, path } = await recorder(5);
    const [red, blue] = await Promise.all([jpegOf("red"), jpegOf("blue")]);
    screencast.frame(red);
    // Well within the 200 ms the first frame holds at 5 a second, then nothing more comes.
    screencast.frame(blue);
    await pause(600);
    const video = await recording.stop();
    const probed = await probeVideo(path);
    // red at 0, blue at its slot (200 ms), blue again at the end.
    expect(probed.frames).toBe(3);
    expect(isBlue(await frameColour(path, 0.1))).toBe(false);
    expect(isBlue(await frameColour(path, 0.3))).toBe(true);
    expect(video?.frames).toBe(3);
    expect(probed.durationS).toBeGreaterThanOrEqual(0.6);
    // The recorder reports its last frame's time; the file's duration adds that frame's length.
    // Within a few milliseconds of the time the recorder gave it: ffmpeg may place it a little off.
    expect(Math.abs((video?.durationMs ?? 0) - probed.lastFrameS * 1000)).toBeLessThanOrEqual(10);
    expect(probed.durationS).toBeGreaterThan(probed.lastFrameS);
  });
});
