import { readdirSync, readFileSync } from "node:fs";

/**
 * Counts the processes of the browser a run browser started with `tag`: those carrying the tag
 * (in their command line or environment) and every process in the session of one that did —
 * zygotes and renderers carry neither but stay in the browser's session even when orphaned.
 */
export function chromiumProcesses(tag: string) {
  const sessions = new Set<string>();
  return {
    /** How many of the browser's processes are alive now. */
    count(): number {
      const alive = processes();
      for (const process of alive) if (isTagged(process, tag)) sessions.add(process.sid);
      return alive.filter((process) => isTagged(process, tag) || sessions.has(process.sid)).length;
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
