import type { ServerResponse } from "node:http";
import type { LiveViewer } from "./live-feeds.js";

/** The boundary between the parts of a live view (multipart/x-mixed-replace). */
export const LIVE_BOUNDARY = "skillrun-frame";

/**
 * A viewer writing to `res`: a frame goes out only when the one before has left this process
 * (nothing of it waits in the answer's buffer), otherwise it is dropped, so a slow client misses
 * frames instead of queueing them; one that leaves a frame unread for `stallMs` is let go.
 */
export function multipartViewer(res: ServerResponse, stallMs: number): LiveViewer {
  let stalledSince: number | undefined;
  return {
    offer(frame) {
      if (res.writableEnded || res.destroyed || res.writableLength > 0) return;
      res.write(
        `--${LIVE_BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: ${frame.length}\r\n\r\n`,
      );
      res.write(frame);
      res.write("\r\n");
    },
    check(now) {
      if (res.writableLength === 0) {
        stalledSince = undefined;
        return;
      }
      stalledSince ??= now;
      // Ending the answer would wait behind what the client does not read: the connection goes.
      if (now - stalledSince >= stallMs) res.destroy();
    },
    end() {
      if (res.writableEnded || res.destroyed) return;
      res.end(`--${LIVE_BOUNDARY}--\r\n`);
    },
  };
}
