import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { isTaggedBrowser, listProcesses, type ProcessInfo, statFields } from "../processes.js";

/** What the kernel says of one of the browser's processes. */
export interface ProcessStatus {
  pid: number;
  /** Chromium's `--type=` (renderer, zygote, gpu-process, …); "browser" for the main process. */
  type: string;
  /** The real user id. */
  uid: number;
  /** 0: no seccomp filter, 2: a seccomp-bpf filter (as Chromium's sandbox installs). */
  seccomp: number;
  /** The user namespace, e.g. `user:[4026531837]`. */
  userNamespace: string;
  /** The nice value of each of its threads (Linux keeps a CPU priority per thread). */
  niceValues: number[];
}

/**
 * Counts the processes of the browser a run browser started with `tag`: those carrying the tag
 * (in their command line or environment) and every process in the session of one that did —
 * zygotes and renderers carry neither but stay in the browser's session even when orphaned.
 */
export function chromiumProcesses(tag: string) {
  const sessions = new Set<number>();
  const alive = () => {
    const all = listProcesses();
    for (const process of all) if (isTagged(process, tag)) sessions.add(process.sid);
    return all.filter((process) => isTagged(process, tag) || sessions.has(process.sid));
  };
  return {
    /** How many of the browser's processes are alive now. */
    count(): number {
      return alive().length;
    },
    /** How many are left once all have ended, or `ms` have passed: killed processes take a moment. */
    async gone(ms: number): Promise<number> {
      const deadline = Date.now() + ms;
      while (alive().length > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return alive().length;
    },
    /** The status of each of the browser's processes alive now (those that end meanwhile left out). */
    statuses(): ProcessStatus[] {
      const found: ProcessStatus[] = [];
      for (const process of alive()) {
        try {
          const status = readFileSync(`/proc/${process.pid}/status`, "utf8");
          const field = (name: string) => new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1];
          found.push({
            pid: process.pid,
            type: /--type=([\w-]+)/.exec(process.cmdline)?.[1] ?? "browser",
            uid: Number(field("Uid")),
            seccomp: Number(field("Seccomp")),
            userNamespace: readlinkSync(`/proc/${process.pid}/ns/user`),
            niceValues: readdirSync(`/proc/${process.pid}/task`).map((thread) =>
              Number(statFields(`/proc/${process.pid}/task/${thread}/stat`)[16]),
            ),
          });
        } catch {
          // Gone while we looked.
        }
      }
      return found;
    },
    /**
     * The pids of the browsers alive now: tagged processes not started by another tagged one
     * (Debian's launcher script forks subshells that carry its command line).
     */
    browsers(): number[] {
      const tagged = listProcesses().filter((process) => isTaggedBrowser(process, tag));
      const pids = new Set(tagged.map((process) => process.pid));
      return tagged.filter((process) => !pids.has(process.ppid)).map((process) => process.pid);
    },
  };
}

/** Tagged on its command line, or in its environment (SKILLRUN_TAG) as a launcher's helpers are. */
function isTagged(process: ProcessInfo, tag: string): boolean {
  if (isTaggedBrowser(process, tag)) return true;
  try {
    return readFileSync(`/proc/${process.pid}/environ`, "utf8")
      .split("\0")
      .includes(`SKILLRUN_TAG=${tag}`);
  } catch {
    return false;
  }
}
