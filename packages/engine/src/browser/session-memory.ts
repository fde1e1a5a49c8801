import { readdir, readFile } from "node:fs/promises";

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
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid !== leader && (await sessionOf(pid)) !== leader) continue;
    const used = await memoryOf(pid);
    if (used === undefined) continue;
    pids.push(pid);
    bytes += used;
  }
  return { pids, bytes };
}

/** The session id of `pid` (as this process's PID namespace sees it), or undefined once gone. */
async function sessionOf(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    // The fields after the command name, which is in parentheses and may hold anything.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[3]);
  } catch {
    return undefined;
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
