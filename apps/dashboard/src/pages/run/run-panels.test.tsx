import { describe, expect, it, vi } from "vitest";
import { json, renderWithApi } from "../../test-support/api.js";
import { runSession } from "../../test-support/fixtures.js";
import { button, click, render } from "../../test-support/render.js";
import { LogPanel } from "./log-panel.js";
import { RunFailure } from "./run-failure.js";
import { RunInputs } from "./run-inputs.js";
import { VideoPanel } from "./video-panel.js";

describe("the run page's parts", () => {
  it("shows a secret input as hidden and the others as JSON", async () => {
    const { container } = await render(<RunInputs inputs={{ user: "ada", password: "***" }} />);
    expect(container.textContent).toBe('user"ada"password•••••• (secret, hidden)');
  });

  it("says when a run has no inputs", async () => {
    const { container } = await render(<RunInputs inputs={null} />);
    expect(container.textContent).toBe("No inputs.");
  });

  it("says whether the log is live, parked, whole, or neither yet", async () => {
    const status = async (state: "play" | "finish", complete: boolean, parked = false) => {
      const log = { events: [], complete, error: null };
      const { container } = await renderWithApi(
        <LogPanel run={runSession({ state })} log={log} parked={parked} onSeek={undefined} />,
        () => json([]),
      );
      return container.querySelector('[aria-live="polite"]')?.textContent;
    };
    expect(await status("play", false)).toBe("Live: steps appear as they run.");
    expect(await status("play", false, true)).toBe(
      "Live: the run is parked; its steps appear here once it goes on.",
    );
    expect(await status("finish", true)).toBe("The run has ended; this is its whole log.");
    expect(await status("finish", false)).toBe("");
  });

  it("says why there is no video, by whether the run has ended or is parked", async () => {
    const text = async (state: "play" | "pause" | "finish", parked = false) =>
      (
        await render(
          <VideoPanel run={runSession({ state })} parked={parked} videoRef={null} seeked="" />,
        )
      ).container.querySelector(".video-placeholder")?.textContent;
    expect(await text("play")).toBe("A run that opens a browser has its video here once it ends.");
    expect(await text("finish")).toContain("No video: this run opened no browser");
    // Parked, its browser is closed: nothing says one is open.
    for (const state of ["play", "pause"] as const) {
      expect(await text(state, true)).toBe(
        "Parked: no browser is open for this run while it waits. A run that opens a browser has its video here once it ends.",
      );
    }
  });

  it("shows the video with a line saying where it was last moved", async () => {
    const run = runSession({ state: "finish", video_url: "/v1/videos/run_1.webm" });
    const { container, rerender } = await render(
      <VideoPanel run={run} parked={false} videoRef={null} seeked="" />,
    );
    expect(container.querySelector("video")?.getAttribute("src")).toBe("/v1/videos/run_1.webm");
    expect(container.querySelector('[role="status"]')?.textContent).toBe(
      "Choose a step in the log to see it in the video.",
    );
    await rerender(
      <VideoPanel run={run} parked={false} videoRef={null} seeked="Video moved to 2.5 s: step 3" />,
    );
    expect(container.querySelector('[role="status"]')?.textContent).toBe(
      "Video moved to 2.5 s: step 3",
    );
  });

  it("moves the video to the failed step only when the video shows it", async () => {
    const failure = { step: "step 2 (fail)", message: "too short" };
    const onSeek = vi.fn();
    const without = await render(<RunFailure failure={failure} offsetMs={null} onSeek={onSeek} />);
    expect(without.container.querySelector("button")).toBeNull();
    const noVideo = await render(
      <RunFailure failure={failure} offsetMs={1500} onSeek={undefined} />,
    );
    expect(noVideo.container.querySelector("button")).toBeNull();
    const { container } = await render(
      <RunFailure failure={failure} offsetMs={1500} onSeek={onSeek} />,
    );
    expect(container.querySelector("h2")?.textContent).toBe("Failed at step 2 (fail)");
    await click(button(container, "Show the failed step in the video"));
    expect(onSeek).toHaveBeenCalledWith(1500, "step 2 (fail)");
  });
});
