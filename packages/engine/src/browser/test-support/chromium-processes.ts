import { readdirSync, readFileSync, readlinkSync } from "node:fs";

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
}

/**
 * Counts the processes of the browser a run browser started with `tag`: those carrying the tag
 * (in their command line or environment) and every process in the session of one that did —
 * zygotes and renderers carry neither but stay in the browser's session even when orphaned.
 */
export function chromiumProcesses(tag: string) {
  const sessions = new Set<string>();
  const alive = () => {
    const all = processes();
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
            pid: Number(process.pid),
            type: /--type=([\w-]+)/.exec(process.cmdline)?.[1] ?? "browser",
            uid: Number(field("Uid")),
            seccomp: Number(field("Seccomp")),
            userNamespace: readlinkSync(`/proc/${process.pid}/ns/user`),
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
      const tagged = processes().filter((process) =>
        process.cmdline.includes(`--skillrun-tag=${tag}`),
      );
      const pids = new Set(tagged.map((process) => process.pid));
      return tagged
        .filter((process) => !pids.has(process.ppid))
        .map((process) => Number(process.pid));
    },
  };
}

interface ProcessInfo {
  pid: string;
  ppid: string;
  sid: string;
  cmdline: string;
  environ: string;
}

function isTagged(process: ProcessInfo, tag: string): boolean {
  return (
    process.cmdline.includes(`--skillrun-tag=${tag}`) ||
    process.environ.split("\0").includes(`SKILLRUN_TAG=${tag}`)
  );
}

function processes(): ProcessInfo[] {
  const found: ProcessInfo[] = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // Fields after the command name, which is in parentheses and may hold spaces.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // A zombie has exited; it only waits for its parent to notice.
      if (fields[0] === "Z") continue;
      found.push({
        pid,
        ppid: fields[1] ?? "",
        sid: fields[3] ?? "",
        cmdline: readFileSync(`/proc/${pid}/cmdline`, "utf8"),
        environ: readFileSync(`/proc/${pid}/environ`, "utf8"),
      });
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}
