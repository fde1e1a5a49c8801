import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileStore } from "./file-store.js";

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "skillrun-videos-"));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("FileStore", () => {
  it("has no video for any run while its folder does not exist, and does not create it", () => {
    const store = new FileStore(join(dir, "videos"));
    expect(store.find("run_a")).toBeNull();
  });

  it("creates its folder when a video is to be written, and finds <run id>.webm once it exists", async () => {
    const store = new FileStore(join(dir, "nested", "videos"));
    const file = await store.pathForWriting("run_a");
    expect(file).toBe(join(dir, "nested", "videos", "run_a.webm"));
    expect(store.find("run_a")).toBeNull();
    writeFileSync(file, "webm");
    expect(store.find("run_a")).toBe(file);
    expect(store.find("run_b")).toBeNull();
  });

  it("does not take a folder for a video", () => {
    const store = new FileStore(dir);
    mkdirSync(join(dir, "run_a.webm"));
    expect(store.find("run_a")).toBeNull();
  });

  it("never looks outside its folder for an id that is not a plain name", async () => {
    const store = new FileStore(join(dir, "videos"));
    writeFileSync(join(dir, "secret.webm"), "not a video");
    expect(store.find("../secret")).toBeNull();
    await expect(store.pathForWriting("../secret")).rejects.toThrow(/not a run id/);
  });

  it("moves what earlier attempts left aside, numbered in turn, and nothing when there was nothing", async () => {
    const store = new FileStore(dir);
    expect(await store.keepEarlierAttempt("run_a")).toBeNull();
    writeFileSync(join(dir, "run_a.webm"), "first video");
    mkdirSync(join(dir, "run_a-files"));
    writeFileSync(join(dir, "run_a-files", "shot.png"), "first shot");
    expect(await store.keepEarlierAttempt("run_a")).toBe("run_a-attempt-1");
    // The second attempt was cut off while its video was still being written.
    writeFileSync(join(dir, "run_a.webm.part"), "second video, half");
    expect(await store.keepEarlierAttempt("run_a")).toBe("run_a-attempt-2");
    expect(readdirSync(dir).sort()).toEqual([
      "run_a-attempt-1-files",
      "run_a-attempt-1.webm",
      "run_a-attempt-2.webm.part",
    ]);
    expect(readFileSync(join(dir, "run_a-attempt-1-files", "shot.png"), "utf8")).toBe("first shot");
    expect(store.find("run_a")).toBeNull();
    await expect(store.keepEarlierAttempt("../run_a")).rejects.toThrow(/not a run id/);
  });
});
