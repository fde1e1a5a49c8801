import { type ChildProcess, spawn } from "node:child_process";
import { matroskaFrame, matroskaHeader } from "./matroska-frames.js";

/** How long ffmpeg may take to encode what is queued once its input ends. */
const FINISH_TIMEOUT_MS = 30_000;
/** The end of ffmpeg's error output kept for a problem message. */
const STDERR_TAIL_CHARS = 600;

export interface EncoderOptions {
  ffmpegPath: string;
  /** The most frames a second the video has, for its keyframe spacing. */
  fps: number;
  width: number;
  height: number;
  /** The file written (WebM whatever its name). */
  output: string;
}

/**
 * An ffmpeg process turning JPEG frames, each written with the time it is shown from, into a
 * VP8 WebM file of variable frame rate: a frame lasts until the next one.
 */
export interface FfmpegEncoder {
  /** Why ffmpeg could not be started, once known (it is not found, say). */
  startFailure(): string | undefined;
  /** Whether the last write is still being taken in: writing now would only queue up memory. */
  busy(): boolean;
  /**
   * Writes a JPEG frame shown from `atMs`, milliseconds since the video's start, each later than
   * the one before; ignored once ffmpeg has failed.
   */
  write(jpeg: Buffer, atMs: number): void;
  /** Ends the input and waits for ffmpeg; resolves with why it failed, or undefined. */
  finish(): Promise<string | undefined>;
  /** Kills ffmpeg, leaving whatever it wrote. */
  kill(): void;
}

/** Starts ffmpeg; a missing or failing ffmpeg is reported by `finish`, never thrown. */
export function startFfmpeg(options: EncoderOptions): FfmpegEncoder {
  const { ffmpegPath, fps, width, height, output } = options;
  // biome-ignore format: flags read best beside their values
  const args = [
    "-hide_banner", "-loglevel", "error",
    // Next to no probing of the input (its one track is MJPEG, each frame saying its size): by
    // default ffmpeg reads up to 5 MB or 5 s of input before it decodes any, so a run's few changed
    // frames were all still waiting to be encoded when its browser closed (decision 0067). With
    // the smallest probe it decodes the first frame for its size, and goes on.
    "-probesize", "32",
    // Each frame with its time (matroska-frames.ts), kept as it is: no frame is made up or
    // dropped to fill a fixed rate, and the encoder counts time in the input's milliseconds.
    "-f", "matroska", "-i", "-", "-fps_mode", "passthrough", "-enc_time_base", "-1",
    // Frames follow the page's size, which a full-page screenshot may change for a moment.
    "-vf", `scale=${width}:${height}`,
    // realtime + cpu-used 8 keeps up with 10 fps of 1280×720 on one core; a keyframe at least
    // every 2 s of video (and every 2 s worth of frames) lets a player seek. One encoder thread:
    // libvpx's threads wait for each other spinning, which took 3–4 times the CPU of one thread
    // when the cores are shared (docs/decisions/0067-browser-runs-cost-their-browser.md).
    "-threads", "1",
    "-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "1M",
    "-g", String(fps * 2), "-force_key_frames", "expr:gte(t,n_forced*2)",
    "-pix_fmt", "yuv420p", "-an",
    "-f", "webm", "-y", output,
  ];

  let startFailure: string | undefined;
  let stderr = "";
  let pending = false;
  let exited = false;
  let headerWritten = false;
  const child: ChildProcess = spawn(ffmpegPath, args, {
    stdio: ["pipe", "ignore", "pipe"],
    // A session of its own: where the kernel shares the CPU between sessions first (autogroups),
    // ffmpeg's finish, on which a run's ending waits, no longer shares its run process's part
    // with what that process does meanwhile (docs/decisions/0075). Orphaned, it still ends when
    // its input does.
    detached: true,
  });
  const exit = new Promise<number | null>((resolve) => {
    child.once("close", (code) => {
      exited = true;
      resolve(code);
    });
  });
  child.on("error", (error: NodeJS.ErrnoException) => {
    // Only a process that never started has no pid; after other errors (a failed kill, say) the
    // exit code tells what happened.
    if (child.pid !== undefined) return;
    startFailure ??=
      error.code === "ENOENT"
        ? `ffmpeg was not found (${ffmpegPath}); install Debian's ffmpeg package`
        : `ffmpeg could not be started (${ffmpegPath}): ${error.message}`;
  });

  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL_CHARS);
  });
  // ffmpeg quitting early makes writes fail with EPIPE; its exit code tells why.
  child.stdin?.on("error", () => {});

  const described = (code: number | null) =>
    startFailure ?? `ffmpeg failed (exit code ${code ?? "none"}): ${stderr.trim() || "no output"}`;

  return {
    startFailure: () => startFailure,
    busy: () => pending,
    write(jpeg, atMs) {
      const stdin = child.stdin;
      if (startFailure !== undefined || exited || stdin === null || !stdin.writable) return;
      pending = true;
      // One write to the pipe for the frame's parts.
      stdin.cork();
      if (!headerWritten) {
        stdin.write(matroskaHeader());
        headerWritten = true;
      }
      const [head, frame] = matroskaFrame(jpeg, atMs) as [Buffer, Buffer];
      stdin.write(head);
      stdin.write(frame, () => {
        pending = false;
      });
      stdin.uncork();
    },
    async finish() {
      child.stdin?.end();
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), FINISH_TIMEOUT_MS);
      });
      const code = await Promise.race([exit, timedOut]);
      clearTimeout(timer);
      if (code === "timeout") {
        child.kill("SIGKILL");
        return `ffmpeg did not finish within ${FINISH_TIMEOUT_MS / 1000}s; killed it`;
      }
      return code === 0 && startFailure === undefined ? undefined : described(code);
    },
    kill() {
      child.kill("SIGKILL");
    },
  };
}
