import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { copyProfileFolder, removeProfileCopies } from "./profile-folder.js";

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Every path under `dir`, relative, sorted. */
async function tree(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).sort();
}

describe("a run's copy of a profile folder", () => {
  it("holds the folder's files, without Chromium's lock, its caches or symbolic links", async () => {
    const source = await mkdtemp(join(tmpdir(), "skillrun-profile-source-test-"));
    made.push(source);
    for (const folder of ["Default/Local Storage/leveldb", "Default/Cache/Cache_Data"]) {
      await mkdir(join(source, folder), { recursive: true });
    }
    await mkdir(join(source, "Default/Service Worker/CacheStorage"), { recursive: true });
    await mkdir(join(source, "Default/Code Cache/js"), { recursive: true });
    await mkdir(join(source, "GPUCache"));
    await writeFile(join(source, "Local State"), "{}");
    await writeFile(join(source, "Default/Cookies"), "cookies");
    await writeFile(join(source, "Default/Local Storage/leveldb/000003.log"), "items");
    await writeFile(join(source, "Default/Cache/Cache_Data/data_0"), "cached");
    await writeFile(join(source, "Default/Service Worker/CacheStorage/index"), "cached");
    await writeFile(join(source, "SingletonCookie"), "1");
    await symlink("host-1", join(source, "SingletonLock"));
    await symlink("/etc", join(source, "Default/elsewhere"));

    const copy = await copyProfileFolder(source, "run_1");
    made.push(copy);
    expect(copy).toMatch(/[/\\]skillrun-profile-run_1-[^/\\]+$/);
    expect(await tree(copy)).toEqual([
      "Default",
      "Default/Cookies",
      "Default/Local Storage",
      "Default/Local Storage/leveldb",
      "Default/Local Storage/leveldb/000003.log",
      "Default/Service Worker",
      "Local State",
    ]);

    expect(await removeProfileCopies("run_1")).toBe(1);
    expect((await readdir(tmpdir())).some((name) => copy.endsWith(name))).toBe(false);
  });

  it("names a missing folder", async () => {
    const missing = join(tmpdir(), "skillrun-no-such-profile");
    await expect(copyProfileFolder(missing, "run_2")).rejects.toThrow(
      `could not copy the browser profile folder ${missing}: ENOENT`,
    );
    expect(await removeProfileCopies("run_2")).toBe(0);
  });
});
