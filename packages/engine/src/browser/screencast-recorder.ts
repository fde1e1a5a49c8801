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
  /**
   * Resolves once `stop` has taken the video's last frame (waiting for a first one if none came):
   * from then on the video needs nothing more of the browser.
   */
  lastFrameTaken(): Promise<void>;
}

/**
 * Records a page, the current tab (see `show`): Chromium's screencast sends a JPEG only when the
 * page changes, and each one goes to ffmpeg with the time it came (at most `fps` a second), so a
 * still page costs nothing and the video's clock is the run's; the last frame is written again
 * at the end, so the video lasts as long as the browser was in use.
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
  /** When `latest` came, in ms since the first frame. */
  let latestAt = 0;
  let firstAt = 0;
  /** How many frames went to ffmpeg, the number of the last one, and its time in the video. */
  let written = 0;
  let writtenSeq = 0;
  let writtenAt = 0;
  let stopped = false;
  /** Set while a frame waits for its turn (the rate's next slot, or ffmpeg to take the last). */
  let due: NodeJS.Timeout | undefined;
  let tookLastFrame = () => {};
  const lastFrameTaken = new Promise<void>((resolve) => {
    tookLastFrame = resolve;
  });
  let gotFirstFrame = () => {};
  const firstFrame = new Promise<void>((resolve) => {
    gotFirstFrame = resolve;
  });
  const interval = 1000 / fps;
  const sinceFirst = () => Date.now() - firstAt;

  /**
   * Writes the latest frame if it was not written yet, at the time it came, or at the rate's
   * next slot when it came sooner: a page that changes all the time costs no more than `fps`
   * frames a second, and one that does not change costs nothing until it does.
   */
  const writeLatest = () => {
    due = undefined;
    if (stopped || latest === undefined || writtenSeq === received) return;
    const slot = written === 0 ? 0 : Math.ceil(writtenAt + interval);
    const wait = Math.max(slot - sinceFirst(), 0);
    // A slow ffmpeg gets no more than it takes in: meanwhile newer frames replace this one.
    if (wait > 0 || encoder.busy()) {
      due = setTimeout(writeLatest, wait > 0 ? wait : interval);
      return;
    }
    emit(latest, Math.max(latestAt, slot));
    writtenSeq = received;
  };
  const emit = (jpeg: Buffer, atMs: number) => {
    encoder.write(jpeg, atMs);
    written += 1;
    writtenAt = atMs;
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
      if (received === 1) {
        firstAt = Date.now();
        gotFirstFrame();
      }
      latestAt = sinceFirst();
      if (due === undefined) writeLatest();
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
      return received === 0 ? 0 : sinceFirst();
    },
    latestFrame() {
      return latest === undefined ? undefined : { seq: received, jpeg: latest };
    },
    lastFrameTaken: () => lastFrameTaken,
    async stop() {
      if (stopped) return null;
      if (received === 0) await settles(firstFrame, FIRST_FRAME_WAIT_MS);
      stopped = true;
      clearTimeout(due);
      try {
        if (latest !== undefined) {
          // The latest frame if it was held back, then once more now, so the video lasts until now.
          const now = Math.max(sinceFirst(), written === 0 ? 0 : writtenAt + 1);
          if (writtenSeq !== received)
            emit(latest, Math.min(Math.max(latestAt, writtenAt + 1), now));
          if (now > writtenAt) emit(latest, now);
        }
      } finally {
        // Whatever happened, the browser is not kept waiting for the video.
        tookLastFrame();
      }
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
        durationMs: writtenAt,
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
