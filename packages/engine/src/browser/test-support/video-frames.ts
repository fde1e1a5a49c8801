import { execFile } from "node:child_process";
import { promisify } from "node:util";

/**
 * The average colour (red, green, blue, 0–255) of what a player shows at `seconds`: the last
 * frame that began at or before it, scaled down to one pixel by ffmpeg. Frames last until the
 * next (the video's frame rate is variable), so the video is first made 100 frames a second,
 * each repeated until the next; seeking alone would give the first frame after `seconds`.
 */
export async function frameColour(
  path: string,
  seconds: number,
): Promise<[number, number, number]> {
  const { stdout } = await promisify(execFile)(
    "ffmpeg",
    [
      ...["-v", "error", "-i", path, "-ss", seconds.toFixed(3)],
      ...["-frames:v", "1", "-vf", "scale=1:1,fps=100", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
    ],
    { encoding: "buffer" },
  );
  if (stdout.length < 3) throw new Error(`${path} has no frame at ${seconds}s`);
  return [stdout[0] as number, stdout[1] as number, stdout[2] as number];
}

/**
 * The average colour of the video's last frame, which the recorder writes when the recording
 * stops and which lasts a millisecond: every frame is decoded, scaled down to one pixel.
 */
export async function lastFrameColour(path: string): Promise<[number, number, number]> {
  const { stdout } = await promisify(execFile)(
    "ffmpeg",
    [
      ...["-v", "error", "-i", path, "-fps_mode", "passthrough"],
      ...["-vf", "scale=1:1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
    ],
    { encoding: "buffer" },
  );
  if (stdout.length < 3) throw new Error(`${path} has no frames`);
  const last = stdout.subarray(stdout.length - 3);
  return [last[0] as number, last[1] as number, last[2] as number];
}
