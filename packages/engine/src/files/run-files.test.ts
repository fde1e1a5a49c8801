import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRunFiles, RunFilesLimitExceeded } from "./run-files.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "skillrun-run-files-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function* chunksOf(size: number, count: number): AsyncIterable<Uint8Array> {
  for (let i = 0; i < count; i += 1) yield new Uint8Array(size);
}

describe("the run's files within maxTotalBytes", () => {
  it("keeps files up to the limit together and refuses one that would pass it, keeping nothing of it", async () => {
    const files = createRunFiles({ dir: join(dir, "run"), maxTotalBytes: 1000 });
    await files.write("a.bin", new Uint8Array(600));
    await files.receive("b.bin", chunksOf(100, 4));
    await expect(files.write("c.bin", new Uint8Array(1))).rejects.toThrow(RunFilesLimitExceeded);
    await expect(files.write("c.bin", new Uint8Array(1))).rejects.toThrow(
      "c.bin would take the run's files over their limit of 1000 bytes (1000 bytes) for all of a run's files; nothing of it was kept",
    );
    expect(files.list().map((file) => file.name)).toEqual(["a.bin", "b.bin"]);
    expect((await readdir(join(dir, "run"))).sort()).toEqual(["a.bin", "b.bin"]);
  });

  it("stops a streamed body as it crosses the limit, and what it counted is free again", async () => {
    const files = createRunFiles({ dir: join(dir, "run"), maxTotalBytes: 1000 });
    let yielded = 0;
    async function* endless(): AsyncIterable<Uint8Array> {
      for (;;) {
        yielded += 1;
        yield new Uint8Array(100);
      }
    }
    await expect(files.receive("big.bin", endless())).rejects.toThrow(RunFilesLimitExceeded);
    expect(yielded).toBeLessThanOrEqual(12);
    expect(await readdir(join(dir, "run"))).toEqual([]);
    // The refused transfer's bytes no longer count.
    await files.write("fits.bin", new Uint8Array(1000));
    expect(files.list().map((file) => file.name)).toEqual(["fits.bin"]);
  });

  it("counts the files the run starts with, and checks a copy's size before copying", async () => {
    await writeFile(join(dir, "download.bin"), new Uint8Array(300));
    const files = createRunFiles({
      dir: join(dir, "run"),
      maxTotalBytes: 1000,
      existing: [
        { name: "input.csv", bytes: 800, content_type: "text/csv", sha256: "x", created_at: "" },
      ],
    });
    await expect(files.copy(join(dir, "download.bin"), "download.bin")).rejects.toThrow(
      RunFilesLimitExceeded,
    );
    await files.write("small.bin", new Uint8Array(200));
    expect(files.list().map((file) => file.name)).toEqual(["input.csv", "small.bin"]);
  });

  it("has no limit when none is given", async () => {
    const files = createRunFiles({ dir: join(dir, "run") });
    await files.receive("big.bin", chunksOf(64 * 1024, 32));
    expect(files.find("big.bin")?.bytes).toBe(2 * 1024 * 1024);
  });
});
