import { type ChildProcess, spawn } from "node:child_process";

/** How long ffmpeg may take to encode what is queued once its input ends. */
const FINISH_TIMEOUT_MS = 30_000;
/** The end of ffmpeg's error output kept for a problem message. */
const STDERR_TAIL_CHARS = 600;

export interface EncoderOptions {
  ffmpegPath: string;
  fps: number;
  width: number;
  height: number;
  /** The file written (WebM whatever its name). */
  output: string;
}

/** An ffmpeg process turning JPEG frames written to its stdin into a VP8 WebM file. */
export interface FfmpegEncoder {
  /** Why ffmpeg could not be started, once known (it is not found, say). */
  startFailure(): string | undefined;
  /** Whether the last write is still being taken in: writing now would only queue up memory. */
  busy(): boolean;
  /** Writes `copies` repeats of a JPEG frame; ignored once ffmpeg has failed. */
  write(jpeg: Buffer, copies: number): void;
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
    "-f", "image2pipe", "-framerate", String(fps), "-c:v", "mjpeg", "-i", "-",
    // Frames follow the page's size, which a full-page screenshot may change for a moment.
    "-vf", `scale=${width}:${height}`,
    // realtime + cpu-used 8 keeps up with 10 fps of 1280×720 on one core; a keyframe every
    // 2 s lets a player seek.
    "-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "1M",
    "-g", String(fps * 2), "-pix_fmt", "yuv420p", "-an",
    "-f", "webm", "-y", output,
  ];

  let startFailure: string | undefined;
  let stderr = "";
  let pending = false;
  let exited = false;
  const child: ChildProcess = spawn(ffmpegPath, args, { stdio: ["pipe", "ignore", "pipe"] });
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
    write(jpeg, copies) {
      const stdin = child.stdin;
      if (startFailure !== undefined || exited || stdin === null || !stdin.writable) return;
      pending = true;
      const chunk = copies === 1 ? jpeg : Buffer.concat(Array.from({ length: copies }, () => jpeg));
      stdin.write(chunk, () => {
        pending = false;
      });
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
