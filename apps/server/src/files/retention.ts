import { lstat, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { formatBytes } from "@skillrun/engine";
import type { Logger } from "pino";
import type { RetentionRepository } from "../db/repositories/retention.js";
import type { RunFileRepository } from "../db/repositories/run-files.js";
import type { UploadedFileRepository } from "../db/repositories/uploaded-files.js";
import type { Clock } from "../domain/clock.js";
import { RUN_ID_PATTERN } from "../domain/ids.js";
import { INCOMING_PREFIX } from "../http/upload-body.js";
import type { FileStore } from "./file-store.js";

const DAY_MS = 24 * 60 * 60 * 1000;
// Runs and uploads are looked up this many at a time.
const BATCH = 500;
// An upload still being received is younger than this; an older temporary file was left by a
// process that died while receiving it.
const INCOMING_KEPT_MS = DAY_MS;
// How long the changes the run stream resumes from are kept (RETENTION_DAYS=0 keeps them too).
const RUN_CHANGES_KEPT_MS = DAY_MS;

/** What one sweep removed. */
export interface RetentionReport {
  /** Runs whose video or files were removed. */
  runs: number;
  videos: number;
  /** Run files removed from the index. */
  runFiles: number;
  uploads: number;
  /** Webhook deliveries (delivered or given up) removed with their attempts. */
  webhookDeliveries: number;
  /** Events of the step logs of runs that ended before the cutoff. */
  stepLogEvents: number;
  /** Checkpoints of runs that ended before the cutoff (a rerun from them is no longer possible). */
  checkpoints: number;
  /** Bytes freed on disk, all together. */
  bytes: number;
}

export interface RetentionDeps {
  retention: RetentionRepository;
  runFiles: RunFileRepository;
  uploads: UploadedFileRepository;
  fileStore: FileStore;
  clock: Clock;
  logger: Logger;
  /** RETENTION_DAYS: what is older is removed; 0 keeps everything. */
  days: number;
}

// What the store holds for a run: its video (maybe half-written), its folder of files, and
// those of its earlier attempts.
const RUN_ENTRY = /^(.+?)(-attempt-\d+)?(\.webm|\.webm\.part|-files)$/;

/**
 * Removes what the store keeps longer than RETENTION_DAYS: the video and the files (folder and
 * index rows) of runs that ended before the cutoff, the uploads made before it that no queued
 * or running run names, and the webhook deliveries written before it that are done with
 * (delivered or given up; a pending one stays until it is). The runs are found from the store's folder (one entry per run
 * that has anything there) and the database says which of them ended when; rows go before their
 * bytes, so a sweep cut short leaves files a later sweep finds, never rows without files. Any
 * number of workers may sweep at once: removing twice removes nothing more.
 */
export class Retention {
  constructor(private readonly deps: RetentionDeps) {}

  /** One sweep; null when retention is off (RETENTION_DAYS=0). Logs one line when it removed anything. */
  async sweep(): Promise<RetentionReport | null> {
    const { days, clock, logger } = this.deps;
    if (days === 0) return null;
    const now = clock.now().getTime();
    const cutoff = new Date(now - days * DAY_MS);
    const report: RetentionReport = {
      runs: 0,
      videos: 0,
      runFiles: 0,
      uploads: 0,
      webhookDeliveries: 0,
      stepLogEvents: 0,
      checkpoints: 0,
      bytes: 0,
    };
    await this.sweepRuns(cutoff, report);
    await this.sweepUploads(cutoff, report);
    await this.sweepIncoming(now - INCOMING_KEPT_MS, report);
    report.webhookDeliveries = await this.deps.retention.forgetWebhookDeliveries(cutoff);
    report.stepLogEvents = await this.deps.retention.forgetStepLogs(cutoff);
    report.checkpoints = await this.deps.retention.forgetCheckpoints(cutoff);
    await this.deps.retention.forgetEndedLiveViews();
    // The run stream resumes from a change of the last day at most; older ones serve nobody.
    await this.deps.retention.forgetRunChanges(new Date(now - RUN_CHANGES_KEPT_MS));
    const { runs, uploads, bytes, webhookDeliveries, stepLogEvents, checkpoints } = report;
    if (runs + uploads + bytes + webhookDeliveries + stepLogEvents + checkpoints > 0) {
      logger.info(
        { retention: report, days },
        `retention removed the videos and files of ${runs} runs ended more than ${days} days ago (${report.videos} videos, ${report.runFiles} indexed files), ${stepLogEvents} step log events, ${checkpoints} checkpoints, ${uploads} uploads and ${webhookDeliveries} webhook deliveries: ${formatBytes(bytes)}`,
      );
    }
    return report;
  }

  private async sweepRuns(cutoff: Date, report: RetentionReport): Promise<void> {
    const { fileStore, retention, runFiles } = this.deps;
    const entriesOf = new Map<string, string[]>();
    for (const entry of await entries(fileStore.dir)) {
      const match = RUN_ENTRY.exec(entry);
      const runId = match?.[1];
      if (runId === undefined || !RUN_ID_PATTERN.test(runId)) continue;
      entriesOf.set(runId, [...(entriesOf.get(runId) ?? []), entry]);
    }
    const runIds = [...entriesOf.keys()];
    for (let start = 0; start < runIds.length; start += BATCH) {
      const ended = await retention.endedBefore(runIds.slice(start, start + BATCH), cutoff);
      report.runFiles += await runFiles.forget(ended);
      for (const runId of ended) {
        report.runs += 1;
        for (const entry of entriesOf.get(runId) ?? []) {
          if (entry.endsWith(".webm")) report.videos += 1;
          report.bytes += await remove(join(fileStore.dir, entry));
        }
      }
    }
  }

  private async sweepUploads(cutoff: Date, report: RetentionReport): Promise<void> {
    const { uploads, retention, fileStore } = this.deps;
    const inUse = await retention.uploadsInUse();
    let after: { createdAt: Date; id: string } | undefined;
    for (;;) {
      const batch = await uploads.createdBefore(cutoff, BATCH, after);
      const last = batch.at(-1);
      if (last === undefined) return;
      after = { createdAt: last.createdAt, id: last.id };
      const expired = batch.filter((upload) => !inUse.has(upload.id));
      report.uploads += await uploads.forget(expired.map((upload) => upload.id));
      for (const upload of expired) report.bytes += await remove(fileStore.uploadPathOf(upload.id));
    }
  }

  /** Temporary files of uploads whose receiving process died. */
  private async sweepIncoming(before: number, report: RetentionReport): Promise<void> {
    const dir = this.deps.fileStore.uploadsDir;
    for (const entry of await entries(dir)) {
      if (!entry.startsWith(INCOMING_PREFIX)) continue;
      const path = join(dir, entry);
      const stats = await lstat(path).catch(() => null);
      if (stats !== null && stats.mtimeMs < before) report.bytes += await remove(path);
    }
  }
}

/** The names in `dir`; none when it does not exist (yet). */
async function entries(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/**
 * Removes a file or a folder of files; returns the bytes it held (0 when already gone). Another
 * worker's sweep may remove the same path at any moment, so every read of it tolerates its
 * disappearance.
 */
async function remove(path: string): Promise<number> {
  const stats = await lstat(path).catch(() => null);
  if (stats === null) return 0;
  let bytes = stats.isFile() ? stats.size : 0;
  if (stats.isDirectory()) {
    for (const name of await entries(path)) {
      const entry = await lstat(join(path, name)).catch(() => null);
      if (entry?.isFile()) bytes += entry.size;
    }
  }
  await rm(path, { recursive: true, force: true });
  return bytes;
}
