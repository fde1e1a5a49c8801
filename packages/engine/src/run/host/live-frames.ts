import type { LiveFrame } from "../../browser/types.js";

/**
 * At most this many frames a second go to the server while somebody watches the run: enough to
 * follow a page, a fraction of the screencast's own rate
 * (docs/decisions/0057-live-view-through-the-database.md).
 */
export const LIVE_FRAMES_PER_SECOND = 4;

/**
 * Sends the run's screencast frames to the server for its live view, only while the server says
 * somebody watches (`watched`), at most LIVE_FRAMES_PER_SECOND, and only frames not sent yet: a
 * page that does not change costs nothing. The frames are the recorder's, never a second capture.
 */
export class LiveFrames {
  private timer: NodeJS.Timeout | undefined;
  private sent = 0;

  constructor(
    private readonly latest: () => LiveFrame | undefined,
    private readonly send: (jpeg: Uint8Array) => void,
    private readonly intervalMs = 1000 / LIVE_FRAMES_PER_SECOND,
  ) {}

  /** Somebody watches the run (or nobody any more). */
  watched(on: boolean): void {
    if (on && this.timer === undefined) {
      this.timer = setInterval(() => this.flush(), this.intervalMs);
      this.flush();
    } else if (!on) {
      this.stop();
    }
  }

  /** Sends the latest frame now if it was not sent yet (a parked run's last look, watched or not). */
  flush(): void {
    const frame = this.latest();
    if (frame === undefined || frame.seq === this.sent) return;
    this.sent = frame.seq;
    this.send(frame.jpeg);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
