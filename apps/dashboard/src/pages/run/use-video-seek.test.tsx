import { describe, expect, it } from "vitest";
import { button, click, find, render } from "../../test-support/render.js";
import { useVideoSeek } from "./use-video-seek.js";

function Player() {
  const video = useVideoSeek();
  return (
    <>
      {/* biome-ignore lint/a11y/useMediaCaption: a test's empty video has nothing to caption */}
      <video ref={video.ref} />
      <button type="button" onClick={() => video.seek(62_500, "step 6 (click)")}>
        seek
      </button>
      <p>{video.seeked}</p>
    </>
  );
}

describe("moving the run's video to a step", () => {
  it("sets the video's time in seconds and says where it went", async () => {
    const { container } = await render(<Player />);
    await click(button(container, "seek"));
    expect(find<HTMLVideoElement>(container, "video").currentTime).toBe(62.5);
    expect(find(container, "p").textContent).toBe("Video moved to 1 min 3 s: step 6 (click)");
  });
});
