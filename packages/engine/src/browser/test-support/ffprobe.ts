import { execFile } from "node:child_process";
import { promisify } from "node:util";

/**
 * What ffprobe says of a video file: its first stream's size and frame count, its duration and
 * when its last frame is shown. The duration adds a length the muxer gives the last frame, which
 * a variable frame rate leaves it to guess (ffmpeg takes one frame at the rate of the first
 * few): `lastFrameS` is the time the recorder chose.
 */
export interface ProbedVideo {
  width: number;
  height: number;
  frames: number;
  durationS: number;
  lastFrameS: number;
}

/** Decodes every frame (so the file must be playable to the end), as a player would. */
export async function probeVideo(path: string): Promise<ProbedVideo> {
  const { stdout } = await promisify(execFile)("ffprobe", [
    ...["-v", "error", "-count_frames"],
    ...["-show_entries", "stream=width,height,nb_read_frames", "-show_entries", "format=duration"],
    ...["-show_entries", "packet=pts_time"],
    ...["-of", "json", path],
  ]);
  const probed = JSON.parse(stdout) as {
    streams: { width: number; height: number; nb_read_frames: string }[];
    format: { duration: string };
    packets: { pts_time: string }[];
  };
  const stream = probed.streams[0];
  if (stream === undefined) throw new Error(`${path} has no video stream`);
  return {
    width: stream.width,
    height: stream.height,
    frames: Number(stream.nb_read_frames),
    durationS: Number(probed.format.duration),
    lastFrameS: Math.max(...probed.packets.map((packet) => Number(packet.pts_time))),
  };
}
