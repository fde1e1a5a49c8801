import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { VideoStore } from "./video-store.js";

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "skillrun-videos-"));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("VideoStore", () => {
  it("has no video for any run while its folder does not exist, and does not create it", async () => {
    const store = new VideoStore(join(dir, "videos"));
    expect(await store.find("run_a")).toBeNull();
  });

  it("creates its folder when a video is to be written, and finds <run id>.webm once it exists", async () => {
    const store = new VideoStore(join(dir, "nested", "videos"));
    const file = await store.pathForWriting("run_a");
    expect(file).toBe(join(dir, "nested", "videos", "run_a.webm"));
    expect(await store.find("run_a")).toBeNull();
    writeFileSync(file, "webm");
    expect(await store.find("run_a")).toBe(file);
    expect(await store.find("run_b")).toBeNull();
  });

  it("does not take a folder for a video", async () => {
    const store = new VideoStore(dir);
    mkdirSync(join(dir, "run_a.webm"));
    expect(await store.find("run_a")).toBeNull();
  });

  it("never looks outside its folder for an id that is not a plain name", async () => {
    const store = new VideoStore(join(dir, "videos"));
    writeFileSync(join(dir, "secret.webm"), "not a video");
    expect(await store.find("../secret")).toBeNull();
    await expect(store.pathForWriting("../secret")).rejects.toThrow(/not a run id/);
  });
});
