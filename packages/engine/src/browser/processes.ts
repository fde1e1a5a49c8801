import { readdirSync, readFileSync } from "node:fs";
import { setPriority } from "node:os";

/** What /proc says of one live process. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** The session id: Chromium's zygotes and renderers stay in the browser's session. */
  sid: number;
  /** NUL-separated, as the kernel keeps it. */
  cmdline: string;
}

/** The live processes of this machine (zombies left out). Linux only: elsewhere none. */
export function listProcesses(): ProcessInfo[] {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const found: ProcessInfo[] = [];
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // The fields after the command name, which is in parentheses and may hold spaces.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // A zombie has exited; it only waits for its parent to notice.
      if (fields[0] === "Z") continue;
      found.push({
        pid: Number(pid),
        ppid: Number(fields[1]),
        sid: Number(fields[3]),
        cmdline: readFileSync(`/proc/${pid}/cmdline`, "utf8"),
      });
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}

/** Whether a process carries the tag a run browser gives its Chromium (RunBrowserOptions.tag). */
export function isTaggedBrowser(process: ProcessInfo, tag: string): boolean {
  return process.cmdline.includes(`--skillrun-tag=${tag}`);
}

/**
 * The processes of the browser started with `tag`: those carrying the tag and every process in
 * the session of one (zygotes and renderers carry no tag, but playwright starts the browser as a
 * session leader); never this process's own session.
 */
export function browserProcesses(tag: string, all = listProcesses()): ProcessInfo[] {
  const own = all.find((p) => p.pid === process.pid)?.sid;
  const sessions = new Set(
    all.filter((p) => isTaggedBrowser(p, tag) && p.sid !== own).map((p) => p.sid),
  );
  return all.filter(
    (p) => p.pid !== process.pid && (isTaggedBrowser(p, tag) || sessions.has(p.sid)),
  );
}

/**
 * Kills what is left of the browser started with `tag` when whoever ran it can no longer close
 * it (its run process was killed). Returns how many processes were signalled.
 */
export function killBrowserProcesses(tag: string): number {
  let killed = 0;
  for (const p of browserProcesses(tag)) {
    try {
      process.kill(p.pid, "SIGKILL");
      killed += 1;
    } catch {
      // Gone already.
    }
  }
  return killed;
}

/**
 * Gives every thread of the browser started with `tag` the CPU priority (nice value)
 * `priority`: Linux keeps one per thread, and each thread starts with its creator's.
 */
export function setBrowserPriority(tag: string, priority: number): void {
  for (const p of browserProcesses(tag)) {
    let threads: string[];
    try {
      threads = readdirSync(`/proc/${p.pid}/task`);
    } catch {
      continue;
    }
    for (const thread of threads) {
      try {
        setPriority(Number(thread), priority);
      } catch {
        // Gone while we looked.
      }
    }
  }
}

/**
 * Whether this process may raise a CPU priority it lowered: CAP_SYS_NICE in its effective
 * capabilities (root has it, except in containers that drop it, as Docker does by default).
 */
export function mayRaisePriority(): boolean {
  try {
    const status = readFileSync("/proc/self/status", "utf8");
    const effective = /^CapEff:\s*([0-9a-f]+)$/m.exec(status)?.[1];
    const CAP_SYS_NICE = 23n;
    return effective !== undefined && ((BigInt(`0x${effective}`) >> CAP_SYS_NICE) & 1n) === 1n;
  } catch {
    return false;
  }
}
