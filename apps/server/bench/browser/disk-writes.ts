// The machine's disk writes, read from /proc/diskstats: the browser rows wait for a quiet disk
// before each phase and say how much was written during it. The benches before this one leave
// writeback running (a million-run list, PostgreSQL's checkpoints), and the figures are
// those of a quiet machine (docs/decisions/0074).
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { sleep } from "../support/stats.js";

const SECTOR_BYTES = 512;
/** Whole disks, not their partitions or the machine's virtual devices. */
const DISK = /^(vd[a-z]+|sd[a-z]+|xvd[a-z]+|nvme\d+n\d+)$/;
/** A second with less written than this is quiet. */
const QUIET_BYTES_PER_SECOND = 1024 * 1024;
const QUIET_WAIT_LIMIT_MS = 120_000;

/** Bytes written to the machine's disks since boot; 0 where /proc/diskstats cannot be read. */
export async function bytesWritten(): Promise<number> {
  const stats = await readFile("/proc/diskstats", "utf8").catch(() => "");
  let sectors = 0;
  for (const line of stats.split("\n")) {
    const fields = line.trim().split(/\s+/);
    // major minor name, then reads (4 fields), then writes: completed, merged, sectors, ms.
    if (DISK.test(fields[2] ?? "")) sectors += Number(fields[9]);
  }
  return sectors * SECTOR_BYTES;
}

/**
 * Writes back what the page cache holds, then waits for a second in which the disks took less
 * than 1 MB (at most two minutes). Returns how long it waited, ms.
 */
export async function untilDiskQuiet(): Promise<number> {
  const started = Date.now();
  execFileSync("sync");
  let before = await bytesWritten();
  while (Date.now() - started < QUIET_WAIT_LIMIT_MS) {
    await sleep(1000);
    const now = await bytesWritten();
    if (now - before < QUIET_BYTES_PER_SECOND) break;
    before = now;
  }
  return Date.now() - started;
}
