import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { sessionProcesses } from "./processes.js";

/** The processes of one browser and the memory they use together. */
export interface SessionMemory {
  pids: number[];
  /** Proportional set size summed (shared pages split between their users), in bytes. */
  bytes: number;
  /** Whether some process's part is its last PSS plus its anonymous memory's change since. */
  estimated: boolean;
}

/** How long a process's PSS stands for it, its anonymous memory's changes added. */
export const PSS_KEPT_MS = 5_000;
/** A process whose anonymous memory changed by more than this is measured again at once. */
export const PSS_REMEASURED_PAST_BYTES = 16 * 1024 * 1024;

/** The exact memory of the session led by `leader`, every process's PSS read anew. */
export function sessionMemory(leader: number): Promise<SessionMemory> {
  return sessionMeter(leader).measure({ exact: true });
}

export interface SessionMeter {
  /**
   * The session's processes and their memory. A process's PSS is read from the kernel when it is
   * new to the meter, older than PSS_KEPT_MS, or its anonymous memory has changed by more than
   * PSS_REMEASURED_PAST_BYTES; otherwise its last PSS plus that change stands for it. `exact`
   * reads every one anew.
   */
  measure(options?: { exact?: boolean }): Promise<SessionMemory>;
}

/**
 * Measures the processes of the session led by `leader`, again and again. Playwright starts
 * Chromium as a session leader, and every process it starts (zygotes, renderers, GPU and utility
 * processes, sandboxed ones in their own PID namespaces included) stays in that session, even once
 * orphaned; a sandboxed renderer cannot leave it (setsid is outside its seccomp policy).
 *
 * The kernel makes PSS by walking a process's page tables, which is costly at every measurement.
 * What a page can grow is anonymous memory (its heap, buffers, shared memory with the GPU
 * process), which /proc/<pid>/status counts at once; between two PSS readings its changes are
 * added to the last one (docs/decisions/0072).
 */
export function sessionMeter(leader: number): SessionMeter {
  const known = new Map<number, { pss: number; anon: number; at: number }>();
  return {
    async measure({ exact = false } = {}) {
      const pids: number[] = [];
      let bytes = 0;
      let estimated = false;
      const now = Date.now();
      const members = sessionProcesses(leader).map((process) => process.pid);
      const present = new Set(members);
      for (const pid of known.keys()) if (!present.has(pid)) known.delete(pid);
      for (const pid of members) {
        const anon = anonymousBytes(pid);
        const last = known.get(pid);
        if (
          !exact &&
          anon !== undefined &&
          last !== undefined &&
          now - last.at < PSS_KEPT_MS &&
          Math.abs(anon - last.anon) <= PSS_REMEASURED_PAST_BYTES
        ) {
          pids.push(pid);
          bytes += Math.max(0, last.pss + anon - last.anon);
          estimated ||= anon !== last.anon;
          continue;
        }
        const used = await memoryOf(pid);
        if (used === undefined) {
          known.delete(pid);
          continue;
        }
        if (anon !== undefined) known.set(pid, { pss: used, anon, at: now });
        pids.push(pid);
        bytes += used;
      }
      return { pids, bytes, estimated };
    },
  };
}

/**
 * The process's resident anonymous and shared memory (RssAnon + RssShmem), which the kernel keeps
 * counted; undefined once it is gone, or where /proc/<pid>/status does not say (Linux before 4.5).
 */
function anonymousBytes(pid: number): number | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, "latin1");
  } catch {
    return undefined;
  }
  const anon = kilobytes(status, "RssAnon");
  const shmem = kilobytes(status, "RssShmem");
  return anon === undefined || shmem === undefined ? undefined : anon + shmem;
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
