import { readdirSync, readFileSync } from "node:fs";

/**
 * Kills what is left of a run's browser after its thread was terminated (the thread can no
 * longer close it): every process whose command line carries `--skillrun-tag=<runId>`, and every
 * process in the session of one (Chromium's zygotes and renderers carry no tag, but playwright
 * starts the browser as a session leader); never the server's own session. Linux only (/proc);
 * elsewhere nothing is found.
 * Returns how many processes were signalled.
 */
export function killRunProcesses(runId: string): number {
  const tag = `--skillrun-tag=${runId}`;
  const all = processes();
  const own = all.find((p) => p.pid === process.pid)?.sid;
  const tagged = all.filter((p) => p.cmdline.includes(tag));
  const sessions = new Set(tagged.map((p) => p.sid).filter((sid) => sid !== own));
  let killed = 0;
  for (const p of all) {
    const doomed = p.cmdline.includes(tag) || sessions.has(p.sid);
    if (!doomed || p.pid === process.pid) continue;
    try {
      process.kill(p.pid, "SIGKILL");
      killed += 1;
    } catch {
      // Gone already.
    }
  }
  return killed;
}

interface ProcessInfo {
  pid: number;
  sid: string;
  cmdline: string;
}

function processes(): ProcessInfo[] {
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
      if (fields[0] === "Z") continue;
      found.push({
        pid: Number(pid),
        sid: fields[3] ?? "",
        cmdline: readFileSync(`/proc/${pid}/cmdline`, "utf8"),
      });
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}
