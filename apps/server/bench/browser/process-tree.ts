// CPU and memory of a process and everything it started, by kind of process, read from /proc
// while a phase of the bench runs. Linux only, as the bench machine is.
import { readdir, readFile } from "node:fs/promises";
import { sleep } from "../support/stats.js";

/** What a process of the tree is: the root (the server, or the bare script), or what it started. */
export type ProcessKind = "root" | "run process" | "chromium" | "ffmpeg" | "other";

const TICKS_PER_SECOND = 100;
const SAMPLE_MS = 200;
/**
 * Memory every fifth sample: the kernel makes a process's PSS by walking its page tables, and read
 * every sample it took CPU from the runs measured (docs/decisions/0072).
 */
const PSS_EVERY_SAMPLES = 5;

interface Seen {
  kind: ProcessKind;
  /** CPU ticks (user + system) when first seen, and at the latest sample. */
  first: number;
  last: number;
}

export interface TreeFigures {
  /** CPU seconds by kind over the phase. */
  cpuSeconds: Record<ProcessKind, number>;
  /** The highest proportional set size of the tree but its root, MB (shared pages counted once). */
  peakChildrenPssMb: number;
  /** The highest proportional set size of the root, MB. */
  peakRootPssMb: number;
}

interface ProcStat {
  pid: number;
  ppid: number;
  ticks: number;
  comm: string;
}

async function procStat(pid: number): Promise<ProcStat | undefined> {
  try {
    const text = await readFile(`/proc/${pid}/stat`, "utf8");
    // comm is in parentheses and may hold spaces: the fields after its last ")" are fixed.
    const close = text.lastIndexOf(")");
    const comm = text.slice(text.indexOf("(") + 1, close);
    const fields = text.slice(close + 2).split(" ");
    // After comm: state(0) ppid(1) … utime(11) stime(12).
    return {
      pid,
      ppid: Number(fields[1]),
      ticks: Number(fields[11]) + Number(fields[12]),
      comm,
    };
  } catch {
    return undefined; // It ended between the directory's read and this one.
  }
}

async function pssMb(pid: number): Promise<number> {
  try {
    const text = await readFile(`/proc/${pid}/smaps_rollup`, "utf8");
    const kb = /^Pss:\s+(\d+) kB/m.exec(text)?.[1];
    return kb === undefined ? 0 : Number(kb) / 1024;
  } catch {
    return 0;
  }
}

async function cmdline(pid: number): Promise<string> {
  return readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
}

function kindOf(stat: ProcStat, root: number, command: string): ProcessKind {
  if (stat.pid === root) return "root";
  if (stat.comm === "ffmpeg") return "ffmpeg";
  if (/chrom/i.test(stat.comm) || /chrom/i.test(command)) return "chromium";
  if (stat.comm === "node" || /node/.test(command)) return "run process";
  return "other";
}

/**
 * Samples the tree under `root` every 200 ms until `stop()`, its memory every second. A process
 * that ends between two samples loses what it used since the last one (at most 200 ms of CPU
 * each): the figures are a little low, alike for Skillrun and the bare script.
 */
export function watchTree(root: number): { stop(): Promise<TreeFigures> } {
  const seen = new Map<number, Seen>();
  let peakChildrenPssMb = 0;
  let peakRootPssMb = 0;
  let watching = true;
  let round = 0;
  const sampling = (async () => {
    while (watching) {
      const firstRound = round === 0;
      const withMemory = round % PSS_EVERY_SAMPLES === 0;
      round += 1;
      const stats = (
        await Promise.all(
          (
            await readdir("/proc")
          )
            .filter((name) => /^\d+$/.test(name))
            .map((name) => procStat(Number(name))),
        )
      ).filter((stat): stat is ProcStat => stat !== undefined);
      const children = new Map<number, ProcStat[]>();
      for (const stat of stats) {
        children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
      }
      const tree: ProcStat[] = [];
      const rootStat = stats.find((stat) => stat.pid === root);
      const queue = rootStat ? [rootStat] : [];
      while (queue.length > 0) {
        const stat = queue.shift() as ProcStat;
        tree.push(stat);
        queue.push(...(children.get(stat.pid) ?? []));
      }
      let childrenPss = 0;
      for (const stat of tree) {
        const known = seen.get(stat.pid);
        if (known) known.last = stat.ticks;
        else {
          const kind = kindOf(stat, root, await cmdline(stat.pid));
          // A process there at the first sample counts from then; a later one from its start.
          seen.set(stat.pid, { kind, first: firstRound ? stat.ticks : 0, last: stat.ticks });
        }
        if (!withMemory) continue;
        const pss = await pssMb(stat.pid);
        if (stat.pid === root) peakRootPssMb = Math.max(peakRootPssMb, pss);
        else childrenPss += pss;
      }
      if (withMemory) peakChildrenPssMb = Math.max(peakChildrenPssMb, childrenPss);
      await sleep(SAMPLE_MS);
    }
  })();
  return {
    async stop() {
      watching = false;
      await sampling;
      const cpuSeconds: Record<ProcessKind, number> = {
        root: 0,
        "run process": 0,
        chromium: 0,
        ffmpeg: 0,
        other: 0,
      };
      for (const { kind, first, last } of seen.values()) {
        cpuSeconds[kind] += (last - first) / TICKS_PER_SECOND;
      }
      return { cpuSeconds, peakChildrenPssMb, peakRootPssMb };
    },
  };
}
