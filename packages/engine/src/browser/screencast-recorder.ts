import { mkdir, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import type { BrowserContext, CDPSession, Page } from "playwright-core";
import { startFfmpeg } from "./ffmpeg-encoder.js";
import type { LiveFrame, RecordedVideo, Viewport } from "./types.js";

/** Screencast JPEG quality: frames are re-encoded to VP8 anyway. */
const JPEG_QUALITY = 80;
/** How long a recording stopped before its first frame waits for one (a run that ends at once). */
const FIRST_FRAME_WAIT_MS = 1_000;

export interface RecorderOptions {
  path: string;
  fps: number;
  ffmpegPath: string;
  viewport: Viewport;
  problem: (message: string) => void;
}

/** A recording under way; `stop` ends it and gives the video, or null when there is none. */
export interface ScreencastRecorder {
  /** Records `page` from now on instead of the page recorded so far (another tab made current). */
  show(page: Page): Promise<void>;
  /** Milliseconds since the video's first frame (0 before it); undefined once stopped. */
  offsetMs(): number | undefined;
  /**
   * The latest screencast frame of the page shown (a JPEG) and its number, which grows with
   * each new frame; undefined before the first. The live view reads it (RunBrowser.liveFrame).
   */
  latestFrame(): LiveFrame | undefined;
  stop(): Promise<RecordedVideo | null>;
}

/**
 * Records a page, the current tab (see `show`): Chromium's screencast sends a JPEG only when the
 * page changes, so the latest one is written to ffmpeg at a fixed rate, keeping the video as long
 * as the browser was in use.
 * The file appears at `path` only when complete (it is written as `<path>.part`).
 */
export async function startScreencastRecorder(
  context: BrowserContext,
  page: Page,
  options: RecorderOptions,
): Promise<ScreencastRecorder> {
  const { path, fps, viewport, problem } = options;
  // libvpx with yuv420p needs even sizes.
  const width = even(viewport.width);
  const height = even(viewport.height);
  const partial = `${path}.part`;
  await mkdir(dirname(path), { recursive: true });
  const encoder = startFfmpeg({
    ffmpegPath: options.ffmpegPath,
    fps,
    width,
    height,
    output: partial,
  });
  let latest: Buffer | undefined;
  /** How many frames came: the number of `latest`. */
  let received = 0;
  let firstAt = 0;
  let written = 0;
  let stopped = false;
  let ticker: NodeJS.Timeout | undefined;
  let gotFirstFrame = () => {};
  const firstFrame = new Promise<void>((resolve) => {
    gotFirstFrame = resolve;
  });

  /** Writes the latest frame as often as the clock says is due since the first frame. */
  const catchUp = (maxCopies: number) => {
    if (latest === undefined) return;
    const due = Math.floor(((Date.now() - firstAt) * fps) / 1000) + 1 - written;
    const copies = Math.min(due, maxCopies);
    if (copies <= 0) return;
    encoder.write(latest, copies);
    written += copies;
  };
  const tick = () => {
    // A slow ffmpeg gets no more than it takes in; the next tick makes up (up to a second).
    if (!encoder.busy()) catchUp(fps);
  };

  const screencast = {
    format: "jpeg",
    quality: JPEG_QUALITY,
    maxWidth: viewport.width,
    maxHeight: viewport.height,
    everyNthFrame: 1,
  } as const;
  /** Starts the screencast of `shown`; its frames count only while it is the page shown. */
  const watch = async (shown: Page): Promise<CDPSession> => {
    const session = await context.newCDPSession(shown);
    session.on("Page.screencastFrame", (frame) => {
      if (stopped || session !== cdp) return;
      // Chromium sends no more frames until the last one is acknowledged.
      session.send("Page.screencastFrameAck", { sessionId: frame.sessionId }).catch(() => {});
      latest = Buffer.from(frame.data, "base64");
      received += 1;
      if (ticker === undefined) {
        firstAt = Date.now();
        tick();
        ticker = setInterval(tick, 1000 / fps);
        gotFirstFrame();
      }
    });
    return session;
  };

  let cdp: CDPSession;
  try {
    cdp = await watch(page);
    await cdp.send("Page.startScreencast", screencast);
  } catch (error) {
    encoder.kill();
    await rm(partial, { force: true });
    throw error;
  }

  return {
    async show(next) {
      if (stopped) return;
      const previous = cdp;
      const session = await watch(next);
      // From here on only the new page's frames are written; until its first one comes, the
      // last frame of the page before stays on screen.
      cdp = session;
      previous.detach().catch(() => {});
      await session.send("Page.startScreencast", screencast);
    },
    offsetMs() {
      if (stopped) return undefined;
      // Before the first frame, what happens lands at the video's start.
      return ticker === undefined ? 0 : Date.now() - firstAt;
    },
    latestFrame() {
      return latest === undefined ? undefined : { seq: received, jpeg: latest };
    },
    async stop() {
      if (stopped) return null;
      if (ticker === undefined) await settles(firstFrame, FIRST_FRAME_WAIT_MS);
      stopped = true;
      clearInterval(ticker);
      // The last stretch since the latest tick, so the video lasts until now.
      catchUp(fps * 2);
      cdp.detach().catch(() => {});
      if (written === 0) encoder.kill();
      const failure =
        written === 0
          ? (encoder.startFailure() ?? "the screencast sent no frames")
          : await encoder.finish();
      if (failure !== undefined) {
        problem(`video not recorded: ${failure}`);
        await rm(partial, { force: true });
        return null;
      }
      try {
        await rename(partial, path);
      } catch (error) {
        problem(`video not recorded: ${(error as Error).message}`);
        await rm(partial, { force: true });
        return null;
      }
      return {
        path,
        width,
        height,
        frames: written,
        durationMs: Math.round((written * 1000) / fps),
      };
    },
  };
}

function even(size: number): number {
  return Math.max(2, size - (size % 2));
}

/** Waits for `work`, or `ms` at most. */
async function settles(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
