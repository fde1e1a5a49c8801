import { readdirSync, readFileSync } from "node:fs";
import { getPriority } from "node:os";
import { describe, expect, it } from "vitest";
import { DEFAULT_CHROMIUM_USER } from "./chromium-user.js";
import { findChromium } from "./find-chromium.js";
import { listProcesses, setSessionPriority } from "./processes.js";
import { hurryWarmBrowser, launchWarmBrowser } from "./warm-browser.js";

describe("a browser launched ahead", () => {
  it("is given a run's browser's priority when a run takes it while it still launches", async () => {
    const tag = `warm-test-${process.pid}-${Date.now()}`;
    const warm = await launchWarmBrowser({
      executablePath: findChromium(process.env),
      user: DEFAULT_CHROMIUM_USER,
      viewport: { width: 640, height: 480 },
      tag,
    });
    try {
      const sid = warm.session.pid as number;
      const browser = Math.min(getPriority() + 5, 19);
      expect(priorities(sid)).toEqual({ threads: [browser], autogroup: autogroupOf(sid, browser) });
      // As it is while it launches where the priority can be raised back.
      setSessionPriority(sid, 19);
      expect(priorities(sid)).toEqual({ threads: [19], autogroup: autogroupOf(sid, 19) });
      hurryWarmBrowser(tag);
      expect(priorities(sid)).toEqual({ threads: [browser], autogroup: autogroupOf(sid, browser) });
    } finally {
      await warm.discard();
    }
  }, 30_000);
});

/** The nice values of every thread in session `sid`, and its autogroup's line. */
function priorities(sid: number): { threads: number[]; autogroup: string | null } {
  const values = new Set<number>();
  for (const { pid } of listProcesses().filter((process) => process.sid === sid)) {
    for (const thread of readdirSync(`/proc/${pid}/task`)) {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${thread}/stat`, "utf8");
        values.add(Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]));
      } catch {
        // Gone while we looked.
      }
    }
  }
  return { threads: [...values], autogroup: autogroupOf(sid) };
}

/**
 * The autogroup's nice value of `sid`'s session as /proc shows it, or null where the kernel has
 * no autogroups; with `expected`, what it should show then.
 */
function autogroupOf(sid: number, expected?: number): string | null {
  try {
    if (readFileSync("/proc/sys/kernel/sched_autogroup_enabled", "utf8").trim() !== "1") {
      return null;
    }
    if (expected !== undefined) return `nice ${expected}`;
    return /nice (-?\d+)/.exec(readFileSync(`/proc/${sid}/autogroup`, "utf8"))?.[0] ?? null;
  } catch {
    return null;
  }
}
