import { afterEach, describe, expect, it, vi } from "vitest";
import { VideoPanel } from "../pages/run/video-panel.js";
import { json, renderWithApi } from "../test-support/api.js";
import { runSession } from "../test-support/fixtures.js";
import { waitFor } from "../test-support/render.js";
import { LIVE_URL_REFRESH_MS, LiveView } from "./live-view.js";

/** The live view's address the fake server signs the `n`th time it is asked. */
const address = (n: number) =>
  `http://dashboard.test/v1/run/run_1/live?expires=${1_000 + n}&signature=${"s".repeat(43)}`;

afterEach(() => {
  vi.useRealTimers();
});

describe("the live view", () => {
  it("shows the run's signed live address as an image, and a fresh one before it expires", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let signed = 0;
    const { container, calls } = await renderWithApi(<LiveView runId="run_1" />, () => {
      signed += 1;
      return json(address(signed));
    });
    const src = () => container.querySelector("img.live-image")?.getAttribute("src");
    await waitFor(() => expect(src()).toBe(address(1)));
    expect(container.querySelector("img")?.getAttribute("alt")).toBe(
      "Live view of run run_1: what its browser shows now",
    );
    // The server's addresses last a minute: the image moves to a fresh one well before.
    expect(LIVE_URL_REFRESH_MS).toBeLessThan(60_000);
    await vi.advanceTimersByTimeAsync(LIVE_URL_REFRESH_MS);
    await waitFor(() => expect(src()).toBe(address(2)));
    expect(calls).toEqual(["GET /run/run_1/live_url", "GET /run/run_1/live_url"]);
  });

  it("says why when the live view cannot be opened", async () => {
    const { container } = await renderWithApi(<LiveView runId="run_1" />, () =>
      json({ detail: "Run has ended" }, 409),
    );
    await waitFor(() =>
      expect(container.textContent).toContain("The live view could not be opened"),
    );
    expect(container.textContent).toContain("Run has ended");
    expect(container.querySelector("img")).toBeNull();
  });
});

describe("the video panel", () => {
  const panel = (state: "play" | "pause" | "finish", video_url: string | null = null) => (
    <VideoPanel
      run={runSession({ state, video_url })}
      parked={false}
      videoRef={null}
      seeked=""
      live={<LiveView runId="run_1" />}
    />
  );

  it("shows the live view while the run runs or waits", async () => {
    for (const state of ["play", "pause"] as const) {
      const { container } = await renderWithApi(panel(state), () => json(address(1)));
      await waitFor(() =>
        expect(container.querySelector("img.live-image")?.getAttribute("src")).toBe(address(1)),
      );
    }
  });

  it("shows the video instead once the run has ended, and asks for no live address", async () => {
    const { container, calls } = await renderWithApi(
      panel("finish", "/v1/run/run_1/video?expires=1&signature=x"),
      () => json(address(1)),
    );
    expect(container.querySelector("video")?.getAttribute("src")).toBe(
      "/v1/run/run_1/video?expires=1&signature=x",
    );
    expect(container.querySelector("img.live-image")).toBeNull();
    expect(calls).toEqual([]);
  });
});
