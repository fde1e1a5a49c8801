import { closeSync, openSync, readdirSync, readSync } from "node:fs";
import { readFile } from "node:fs/promises";

/** The processes of one browser and the memory they use together. */
export interface SessionMemory {
  pids: number[];
  /** Proportional set size summed (shared pages split between their users), in bytes. */
  bytes: number;
}

/**
 * Measures the processes of the session led by `leader`. Playwright starts Chromium as a session
 * leader, and every process it starts (zygotes, renderers, GPU and utility processes, sandboxed
 * ones in their own PID namespaces included) stays in that session, even once orphaned; a
 * sandboxed renderer cannot leave it (setsid is outside its seccomp policy).
 */
export async function sessionMemory(leader: number): Promise<SessionMemory> {
  const pids: number[] = [];
  let bytes = 0;
  // The scan reads every process's stat synchronously, into one buffer: it runs every
  // MEMORY_CHECK_MS over every process of the machine, and through the promise API (an open, a
  // stat, a read and a close per file, each a trip to the thread pool) it cost the run process
  // more than anything of its own (docs/decisions/0067-browser-runs-cost-their-browser.md).
  const members: number[] = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    if (pid === leader || sessionOf(pid) === leader) members.push(pid);
  }
  for (const pid of members) {
    const used = await memoryOf(pid);
    if (used === undefined) continue;
    pids.push(pid);
    bytes += used;
  }
  return { pids, bytes };
}

/** /proc/<pid>/stat is a line of at most a few hundred bytes. */
const statBuffer = Buffer.alloc(1024);

/** The session id of `pid` (as this process's PID namespace sees it), or undefined once gone. */
function sessionOf(pid: number): number | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(`/proc/${pid}/stat`, "r");
    const stat = statBuffer.toString(
      "latin1",
      0,
      readSync(fd, statBuffer, 0, statBuffer.length, 0),
    );
    // The fields after the command name, which is in parentheses and may hold anything.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ", 4);
    return Number(fields[3]);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The process's proportional set size (PSS), so that pages a zygote shares with its renderers are
 * not counted once per renderer; its resident set size where PSS may not be read (a process that
 * made itself undumpable is readable only with CAP_SYS_PTRACE). Undefined once it is gone.
 */
async function memoryOf(pid: number): Promise<number | undefined> {
  try {
    return kilobytes(await readFile(`/proc/${pid}/smaps_rollup`, "utf8"), "Pss");
  } catch {
    try {
      // Kernel threads and zombies have no VmRSS line: they hold no memory of their own.
      return kilobytes(await readFile(`/proc/${pid}/status`, "utf8"), "VmRSS") ?? 0;
    } catch {
      return undefined;
    }
  }
}

function kilobytes(text: string, field: string): number | undefined {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(text);
  return match === null ? undefined : Number(match[1]) * 1024;
}
