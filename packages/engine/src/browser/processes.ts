import { closeSync, openSync, readdirSync, readFileSync, readSync, writeFileSync } from "node:fs";
import { setPriority } from "node:os";

/** The kernel's flag of a process that has begun to exit (PF_EXITING, include/linux/sched.h). */
const EXITING_FLAG = 0x4;
/** SIGKILL's bit in a process's pending signals. */
const KILL_PENDING = 1 << 8;

/** What /proc says of one live process. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** The session id: Chromium's zygotes and renderers stay in the browser's session. */
  sid: number;
  /** NUL-separated, as the kernel keeps it. */
  cmdline: string;
}

/**
 * The live processes of this machine: those that can still run code of their own. Left out are
 * zombies and processes that have been killed or are exiting, whose memory the kernel may still
 * be freeing (docs/decisions/0071). Linux only: elsewhere none.
 */
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
      const fields = statFields(`/proc/${pid}/stat`);
      if (!canRun(fields)) continue;
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

/** A stat file is a line of at most a few hundred bytes. */
const statBuffer = Buffer.alloc(1024);

/**
 * The fields of a process's or thread's stat file (`/proc/<pid>/stat`, `/proc/<pid>/task/<tid>/
 * stat`) after its command name, which is in parentheses and may hold spaces: the state is [0],
 * the session [3], the nice value [16]. Throws when it is gone.
 */
export function statFields(path: string): string[] {
  // Into one buffer, synchronously: scans read it for every process of the machine.
  const fd = openSync(path, "r");
  try {
    const stat = statBuffer.toString(
      "latin1",
      0,
      readSync(fd, statBuffer, 0, statBuffer.length, 0),
    );
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } finally {
    closeSync(fd);
  }
}

/** A process of a session, as its stat file tells. */
export interface SessionProcess {
  pid: number;
  /** False for a zombie, a process exiting or one with SIGKILL pending (listProcesses). */
  canRun: boolean;
}

/**
 * The processes of session `sid`, from their stat files alone, read synchronously into one
 * buffer. It runs at every memory check and in every run's ending, over every process of the
 * machine: through the promise API (an open, a stat, a read and a close per file, each a trip to
 * the thread pool) it cost a run process more than anything of its own (docs/decisions/0067), and
 * reading each one's command line too (listProcesses) makes the kernel walk its memory, CPU a
 * run's ending takes from its ffmpeg (docs/decisions/0075).
 */
export function sessionProcesses(sid: number): SessionProcess[] {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const found: SessionProcess[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    let fields: string[];
    try {
      fields = statFields(`/proc/${pid}/stat`);
    } catch {
      continue; // Gone while we looked.
    }
    if (Number(fields[3]) === sid) found.push({ pid, canRun: canRun(fields) });
  }
  return found;
}

/**
 * Whether a process of these /proc/<pid>/stat fields (those after its name) can still run code
 * of its own. A zombie (Z) has exited and waits for its parent to notice; one dead (X) is going;
 * one exiting (flags, field 9) or with SIGKILL pending (signal, field 31: a kill of its group
 * marks every thread at once, and none returns to its own code) never runs its code again.
 */
function canRun(fields: readonly string[]): boolean {
  const [state] = fields;
  if (state === "Z" || state === "X") return false;
  const flags = Number(fields[6]);
  const pending = Number(fields[28]);
  return (flags & EXITING_FLAG) === 0 && (pending & KILL_PENDING) === 0;
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
 * How much lower than its run process's a browser's CPU priority is (in nice values): pages, the
 * bulk of a run's CPU, give way to the service's own work (the API, run processes, the videos'
 * encoding, runs' endings), so that a page that spins slows no request and no run's ending
 * (docs/decisions/0071).
 */
export const BROWSER_NICENESS = 5;

/** The CPU priority of a browser started by a thread of priority `own`. */
export function browserPriority(own: number): number {
  return Math.min(own + BROWSER_NICENESS, 19);
}

/**
 * Gives every thread of every process in session `sid` (a browser's: Chromium leads its session)
 * the CPU priority (nice value) `priority`: Linux keeps one per thread, and each thread starts
 * with its creator's. Twice, as a thread started during the first pass by one not yet reached
 * would keep the old one. Where it is not allowed (another user's processes without
 * CAP_SYS_NICE) nothing changes: the launcher has lowered it already (chromium-user.ts).
 */
export function setSessionPriority(sid: number, priority: number): void {
  for (let pass = 0; pass < 2; pass++) {
    for (const p of sessionProcesses(sid)) {
      if (!p.canRun) continue;
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
          // Gone while we looked, or not ours to lower.
        }
      }
    }
  }
}

/**
 * Gives the autogroup of the session process `pid` leads the CPU priority `priority` (a nice
 * value). Where the kernel groups each session's processes (`kernel.sched_autogroup_enabled`, on
 * in Debian's kernels), the CPU is shared between groups first, and a thread's nice value weighs
 * only within its group: a browser, leading a session of its own, would otherwise get as much as
 * the server or a run process. A value of 0 or more needs no privilege; without autogroups there
 * is no such file, and nothing happens.
 */
export function setAutogroupPriority(pid: number, priority: number): void {
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(priority));
  } catch {
    // No autogroups here, the process gone, or not ours.
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
