import { describe, expect, it } from "vitest";
import { find, render } from "../test-support/render.js";
import { RunVideo, VIDEO_POSTER } from "./run-video.js";

describe("the run's video", () => {
  it("shows a neutral grey before it plays, not the run's first (blank, white) frame", async () => {
    const { container } = await render(<RunVideo src="/v1/videos/run_1.webm" title="Video" />);
    const poster = find<HTMLVideoElement>(container, "video").getAttribute("poster");
    expect(poster).toBe(VIDEO_POSTER);
    const svg = decodeURIComponent((poster ?? "").replace(/^data:image\/svg\+xml,/, ""));
    expect(svg).toContain('fill="#3b4048"');
    expect(svg).not.toMatch(/fill="(#fff|#ffffff|white)"/i);
  });
});
