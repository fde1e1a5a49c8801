import { describe, expect, it } from "vitest";
import type { LiveFrame } from "../../browser/types.js";
import { LiveFrames } from "./live-frames.js";

/** A frame source the test moves by hand, and what was sent of it. */
function setup() {
  let frame: LiveFrame | undefined;
  const sent: string[] = [];
  // An interval long enough never to fire during a test: every send here is the test's doing.
  const live = new LiveFrames(
    () => frame,
    (jpeg) => sent.push(Buffer.from(jpeg).toString()),
    3_600_000,
  );
  const draw = (seq: number, text: string) => {
    frame = { seq, jpeg: Buffer.from(text) };
  };
  return { live, sent, draw };
}

describe("live frames", () => {
  it("sends nothing while nobody watches", () => {
    const { live, sent, draw } = setup();
    draw(1, "a");
    live.watched(false);
    expect(sent).toEqual([]);
  });

  it("sends the latest frame at once when somebody starts watching, then only new ones", () => {
    const { live, sent, draw } = setup();
    draw(1, "a");
    draw(2, "b");
    live.watched(true);
    expect(sent).toEqual(["b"]);
    live.flush();
    expect(sent).toEqual(["b"]);
    draw(3, "c");
    live.flush();
    expect(sent).toEqual(["b", "c"]);
    live.stop();
  });

  it("sends nothing before the browser has drawn anything", () => {
    const { live, sent } = setup();
    live.watched(true);
    live.flush();
    expect(sent).toEqual([]);
    live.stop();
  });

  it("flushes the last frame of a run nobody watched (a parked run's last look)", () => {
    const { live, sent, draw } = setup();
    draw(7, "last");
    live.flush();
    expect(sent).toEqual(["last"]);
  });
});
