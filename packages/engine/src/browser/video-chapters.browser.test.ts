import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EngineEvent } from "../run/types.js";
import { probeVideo } from "./test-support/ffprobe.js";
import { type FixtureSite, startFixtureSite } from "./test-support/fixture-site.js";
import { OPENER_COLOUR, POPUP_COLOUR } from "./test-support/interaction-pages.js";
import { runSkill } from "./test-support/run-skill.js";
import { testBrowser } from "./test-support/test-browser.js";
import { frameColour } from "./test-support/video-frames.js";

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(() => site.close());

/** The video offset of the first event of `type` about step `id`. */
function offsetOf(events: EngineEvent[], type: EngineEvent["type"], id: string): number {
  const found = events.find(
    (event) => event.type === type && "step" in event && event.step?.id === id,
  );
  if (found === undefined || !("video_offset_ms" in found) || found.video_offset_ms === undefined) {
    throw new Error(`no ${type} of ${id} with a video offset`);
  }
  return found.video_offset_ms;
}

/** Whether a colour is within a small distance of the one expected (video coding blurs it). */
const near = (colour: number[], expected: readonly number[]) =>
  colour.every((value, i) => Math.abs(value - (expected[i] as number)) <= 40);

describe("video chapters", { timeout: 60_000 }, () => {
  it("every step event of a recorded run says where it is in the video, in order", async () => {
    const test = await testBrowser();
    try {
      const result = await runSkill(
        `
- log: before the browser
- goto: "{{ inputs.base }}/dialogs"
- click: { selector: "#archive" }
- id: pause
  wait: 500ms
- extract: { selector: "#status", save_as: status }
- if: "false"
  log: skipped
- log: done
`,
        { base: site.base, browser: test.browser.access },
      );
      expect(result.outcome).toBe("finished");
      const closed = await test.browser.close();
      const probed = await probeVideo(test.videoPath);
      expect(closed.video).not.toBeNull();

      const stepEvents = result.events.filter((event) => "step" in event);
      const offsets = stepEvents.map((event) =>
        "video_offset_ms" in event ? event.video_offset_ms : undefined,
      );
      // Nothing before the browser started (the log, the goto's start), then every one has one.
      const firstWith = offsets.findIndex((offset) => offset !== undefined);
      expect(stepEvents[firstWith - 1]).toMatchObject({
        type: "step_started",
        step: { kind: "goto" },
      });
      const chaptered = offsets.slice(firstWith);
      expect(chaptered.every((offset) => typeof offset === "number")).toBe(true);
      const numbers = chaptered as number[];
      // The dialog's log, the data saved and the skipped step are chapters too.
      const types = new Set(stepEvents.slice(firstWith).map((event) => event.type));
      expect(types).toEqual(
        new Set(["step_finished", "step_started", "log", "data_updated", "step_skipped"]),
      );
      for (let i = 1; i < numbers.length; i += 1) {
        expect(numbers[i]).toBeGreaterThanOrEqual(numbers[i - 1] as number);
      }
      expect(numbers[0]).toBeGreaterThanOrEqual(0);
      expect(numbers.at(-1)).toBeLessThanOrEqual(probed.durationS * 1000);
      // The video's clock is the run's: a wait of 500 ms spans about 500 ms of it.
      const paused =
        offsetOf(result.events, "step_finished", "pause") -
        offsetOf(result.events, "step_started", "pause");
      expect(paused).toBeGreaterThanOrEqual(500);
      expect(paused).toBeLessThan(1000);
      // Events that are not about a step never carry one.
      for (const event of result.events.filter((event) => !("step" in event))) {
        expect(event).not.toHaveProperty("video_offset_ms");
      }
    } finally {
      await test.dispose();
    }
  });

  it("the video shows the current tab: the popup once switched to, the opener once it closes", async () => {
    const test = await testBrowser();
    try {
      const result = await runSkill(
        `
- goto: "{{ inputs.base }}/opener"
- click: { selector: "#window" }
- id: still_opener
  wait: 1500ms
- id: to_popup
  switch_tab: last
- id: on_popup
  wait: 1500ms
- id: back
  close_tab:
- id: on_opener
  wait: 1500ms
`,
        { base: site.base, browser: test.browser.access },
      );
      expect(result.outcome).toBe("finished");
      expect((await test.browser.close()).video).not.toBeNull();
      // The middle of each wait, well after the page shown last changed.
      const middle = (id: string) =>
        (offsetOf(result.events, "step_started", id) +
          offsetOf(result.events, "step_finished", id)) /
        2000;
      const colours = {
        still_opener: await frameColour(test.videoPath, middle("still_opener")),
        on_popup: await frameColour(test.videoPath, middle("on_popup")),
        on_opener: await frameColour(test.videoPath, middle("on_opener")),
      };
      expect(near(colours.still_opener, OPENER_COLOUR), String(colours.still_opener)).toBe(true);
      expect(near(colours.on_popup, POPUP_COLOUR), String(colours.on_popup)).toBe(true);
      expect(near(colours.on_opener, OPENER_COLOUR), String(colours.on_opener)).toBe(true);
    } finally {
      await test.dispose();
    }
  });
});
