import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChromiumNotFound, findChromium } from "./find-chromium.js";

let dir: string;
let executable: string;
let plainFile: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "find-chromium-"));
  executable = join(dir, "chromium");
  plainFile = join(dir, "not-executable");
  await writeFile(executable, "#!/bin/sh\n");
  await chmod(executable, 0o755);
  await writeFile(plainFile, "");
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function failure(run: () => unknown): ChromiumNotFound {
  try {
    run();
  } catch (error) {
    if (error instanceof ChromiumNotFound) return error;
    throw error;
  }
  throw new Error("findChromium found a Chromium");
}

describe("findChromium", () => {
  it("takes CHROMIUM_PATH when set, trying nothing else", () => {
    expect(findChromium({ CHROMIUM_PATH: executable, PATH: "/usr/bin" })).toBe(executable);
  });

  it("names a CHROMIUM_PATH that does not exist or cannot run", () => {
    expect(failure(() => findChromium({ CHROMIUM_PATH: "/nonexistent/chrome" })).message).toBe(
      "CHROMIUM_PATH is /nonexistent/chrome, which does not exist. Set CHROMIUM_PATH to a Chromium or Chrome executable, or unset it to use the system Chromium (Debian's chromium package).",
    );
    expect(failure(() => findChromium({ CHROMIUM_PATH: plainFile })).message).toContain(
      `CHROMIUM_PATH is ${plainFile}, which is not executable.`,
    );
    expect(failure(() => findChromium({ CHROMIUM_PATH: dir })).message).toContain(
      `CHROMIUM_PATH is ${dir}, which is not a file.`,
    );
  });

  it("takes the first fixed location that exists, then looks on PATH", () => {
    expect(findChromium({}, ["/nonexistent/chromium", executable])).toBe(executable);
    expect(findChromium({ PATH: `/nonexistent-bin:${dir}` }, ["/nonexistent/chromium"])).toBe(
      executable,
    );
  });

  it("says where it looked and how to fix it when there is none", () => {
    const error = failure(() => findChromium({ PATH: "/a:/b" }, ["/x/chromium", "/y/chrome"]));
    expect(error.name).toBe("ChromiumNotFound");
    expect(error.message).toBe(
      "Chromium was not found: CHROMIUM_PATH is not set; looked at /x/chromium, /y/chrome; chromium, chromium-browser, google-chrome on PATH (/a:/b). Install Debian's chromium package (apt-get install chromium) or set CHROMIUM_PATH to a Chromium or Chrome executable.",
    );
    expect(failure(() => findChromium({}, [])).message).toBe(
      "Chromium was not found: CHROMIUM_PATH is not set; PATH was not searched (not set). Install Debian's chromium package (apt-get install chromium) or set CHROMIUM_PATH to a Chromium or Chrome executable.",
    );
  });

  it("finds this machine's Chromium by default", () => {
    expect(findChromium({})).toBe("/usr/bin/chromium");
  });
});
