import { chmod, mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { StorageState } from "./browser-snapshot.js";
import type { ProfileFolder } from "./profile-folder.js";
import {
  folderCookies,
  makeProfileFolder,
  type ProfileSite,
  startProfileSite,
} from "./test-support/profile-site.js";
import { runSkill } from "./test-support/run-skill.js";
import { testBrowser } from "./test-support/test-browser.js";

let site: ProfileSite;
beforeAll(async () => {
  site = await startProfileSite();
});
afterAll(async () => {
  await site?.close();
});

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "skillrun-user-profile-test-"));
  made.push(dir);
  return dir;
}

/** The runs' copies of profile folders (copyProfileFolder) there are now. */
async function copies(): Promise<string[]> {
  return (await readdir(tmpdir())).filter((name) => name.startsWith("skillrun-profile-"));
}

// Reads what the browser holds, then leaves a lasting cookie of its own.
const READ_THEN_SET = `  - goto: "{{ inputs.base }}/"
  - extract: { selector: "#cookies", save_as: cookies }
  - extract: { selector: "#who", save_as: who }
  - extract: { selector: "#theme", save_as: theme }
  - goto: "{{ inputs.base }}/set"
  - extract: { selector: "#cookies", save_as: after }
`;

/** Runs READ_THEN_SET in a run browser on `profileFolder`, recording its video. */
async function runOn(profileFolder: ProfileFolder, storageState?: StorageState) {
  const test = await testBrowser({
    profileFolder,
    memoryLimitBytes: 2 * 1024 ** 3,
    ...(storageState && { storageState }),
  });
  const before = await copies();
  try {
    let during: string[] = [];
    let running = 0;
    const result = await runSkill(READ_THEN_SET, {
      base: site.base,
      browser: test.browser.access,
      onEvent: (event) => {
        if (event.type !== "step_finished") return;
        // Counting while the browser runs also finds its process session, for `gone` below.
        running = Math.max(running, test.processes.count());
        void copies().then((now) => (during = now));
      },
    });
    expect(running).toBeGreaterThan(0);
    const closed = await test.browser.close();
    const left = await test.processes.gone(5000);
    const newCopies = (await copies()).filter((name) => !before.includes(name));
    return { result, closed, left, during, before, newCopies, test };
  } finally {
    await test.dispose();
  }
}

describe("a run browser on a profile folder", { timeout: 120_000 }, () => {
  it("reads the folder's cookies and localStorage from a copy, which it removes; the folder is left as it was", async () => {
    const dir = await folder();
    await makeProfileFolder(dir, site.base);
    const run = await runOn({ path: dir, writable: false });
    expect(run.result).toMatchObject({
      outcome: "finished",
      data: {
        cookies: "session=user",
        who: "ann",
        theme: "none",
        after: "added=yes; session=user",
      },
    });
    // The run used a copy of its own, and removed it; Chromium and its recording ended cleanly.
    expect(run.during.filter((name) => !run.before.includes(name))).toHaveLength(1);
    expect(run.newCopies).toEqual([]);
    expect(run.left).toBe(0);
    expect(run.closed.problems).toEqual([]);
    expect(run.closed.video?.frames).toBeGreaterThan(0);
    // Nothing the run did reached the folder.
    expect(await folderCookies(dir, site.base)).toEqual(["session=user"]);
  });

  it("copies a folder a running Chromium holds, leaving out its lock", async () => {
    const dir = await folder();
    const user = await makeProfileFolder(dir, site.base);
    // The user's Chromium starts again on the folder and keeps running during the run.
    const running = await makeProfileFolder(dir, site.base, true);
    try {
      expect((await readdir(dir)).filter((name) => name.startsWith("Singleton"))).not.toEqual([]);
      const run = await runOn({ path: dir, writable: false });
      expect(run.result).toMatchObject({ outcome: "finished", data: { who: "ann" } });
      expect(run.left).toBe(0);
    } finally {
      await running.close();
      await user.close();
    }
  });

  it("keeps what the run did in a writable folder, which goes back to its owner", async () => {
    const dir = await folder();
    await makeProfileFolder(dir, site.base);
    const owner = await stat(join(dir, "Default"));
    // A folder others may read: the launch as another user makes it private for the run.
    await chmod(dir, 0o755);
    const run = await runOn({ path: dir, writable: true });
    expect(run.result).toMatchObject({
      outcome: "finished",
      data: { cookies: "session=user", who: "ann", after: "added=yes; session=user" },
    });
    expect(run.newCopies).toEqual([]);
    expect(run.during.filter((name) => !run.before.includes(name))).toEqual([]);
    expect(run.left).toBe(0);
    // As root, Chromium ran as another user on the folder; the folder is its owner's again.
    const after = await stat(join(dir, "Default", "Cookies"));
    expect([after.uid, after.gid]).toEqual([owner.uid, owner.gid]);
    expect((await stat(dir)).mode & 0o777).toBe(0o755);
    expect(await folderCookies(dir, site.base)).toEqual(["added=yes", "session=user"]);
  });

  it("refuses a writable folder a running Chromium holds, saying so", async () => {
    const dir = await folder();
    const running = await makeProfileFolder(dir, site.base, true);
    const test = await testBrowser({ profileFolder: { path: dir, writable: true }, video: false });
    try {
      const result = await runSkill(READ_THEN_SET, {
        base: site.base,
        browser: test.browser.access,
      });
      expect(result).toMatchObject({ outcome: "failed" });
      const message = (result as { error: { message: string } }).error.message;
      expect(message).toContain(`the browser profile folder ${dir} is in use by another Chromium`);
    } finally {
      await test.dispose();
      await running.close();
    }
  });

  it("adds a saved profile's storage over the folder's, which keeps the rest", async () => {
    const dir = await folder();
    await makeProfileFolder(dir, site.base);
    const expires = Math.floor(Date.now() / 1000) + 3600;
    const cookie = { domain: "127.0.0.1", path: "/", expires, httpOnly: false, secure: false };
    const saved: StorageState = {
      cookies: [
        { name: "session", value: "saved", sameSite: "Lax", ...cookie },
        { name: "extra", value: "1", sameSite: "Lax", ...cookie },
      ],
      origins: [{ origin: site.base, localStorage: [{ name: "theme", value: "dark" }] }],
    };
    const run = await runOn({ path: dir, writable: false }, saved);
    expect(run.result).toMatchObject({
      outcome: "finished",
      data: { cookies: "extra=1; session=saved", who: "ann", theme: "dark" },
    });
    expect(run.left).toBe(0);
    expect(await folderCookies(dir, site.base)).toEqual(["session=user"]);
  });
});
