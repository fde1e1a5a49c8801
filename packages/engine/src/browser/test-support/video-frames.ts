import { execFile } from "node:child_process";
import { promisify } from "node:util";

/**
 * The average colour (red, green, blue, 0–255) of the video's frame at `seconds`: the frame
 * scaled down to one pixel by ffmpeg, decoded exactly where asked.
 */
export async function frameColour(
  path: string,
  seconds: number,
): Promise<[number, number, number]> {
  const { stdout } = await promisify(execFile)(
    "ffmpeg",
    [
      ...["-v", "error", "-i", path, "-ss", seconds.toFixed(3)],
      ...["-frames:v", "1", "-vf", "scale=1:1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
    ],
    { encoding: "buffer" },
  );
  if (stdout.length < 3) throw new Error(`${path} has no frame at ${seconds}s`);
  return [stdout[0] as number, stdout[1] as number, stdout[2] as number];
}
