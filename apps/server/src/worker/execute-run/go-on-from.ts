import { copyFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Checkpoint, RunFile, SkillDefinition } from "@skillrun/engine";
import { PRIVATE_DIR_MODE } from "../../private-files.js";
import { SecretUnreadable } from "../../secrets/secret-box.js";
import type { RunContext } from "../execute-run.js";
import type { FileIndexWriter } from "../file-index-writer.js";

/** Whether the run goes on from its checkpoints when its worker is lost. */
export function resumable(prepared: { definition: { on_worker_loss?: string } }): boolean {
  return (prepared.definition.on_worker_loss ?? "resume") === "resume";
}

/**
 * Where a claimed run starts (docs/decisions/0051-checkpoints.md): a checkpoint to go on from, a
 * start from its first step, or a failure when the checkpoint it must go on from is not there.
 */
export type StartingPoint =
  | { from: "start" }
  | { from: "checkpoint"; checkpoint: Checkpoint }
  | { from: "nowhere"; message: string };

/**
 * The checkpoint a claimed run goes on from. Under `on_worker_loss: resume` (the default) a run
 * claimed again goes on from its latest; a rerun, or a run its worker put back in the queue,
 * from the one it names (`resume_from`), unless its skill says `restart`.
 */
export async function startingPoint(
  { deps, run }: RunContext,
  definition: SkillDefinition,
): Promise<StartingPoint> {
  const choice = definition.on_worker_loss ?? "resume";
  let label: string | null;
  // A parked run goes on where it waited, whatever its skill says of lost workers.
  if (run.woken && run.resumeFrom !== null) label = run.resumeFrom;
  else if (choice === "resume" && run.attempt > 1) label = null;
  else if (run.resumeFrom !== null && (choice !== "restart" || run.rerunOf !== null)) {
    label = run.resumeFrom;
  } else {
    return { from: "start" };
  }
  const kept = await deps.execution.checkpoint(run.id, label);
  if (kept === null) {
    // A run lost before its first boundary has nothing to go on from: it starts again.
    if (label === null) return { from: "start" };
    return { from: "nowhere", message: `the checkpoint before step ${label} is no longer kept` };
  }
  if (kept.sealed === null) {
    const message = `cannot go on from the checkpoint before step ${kept.label}: it was ${kept.bytes} bytes, more than RUN_CHECKPOINT_MAX_BYTES, and was not kept`;
    return { from: "nowhere", message };
  }
  try {
    return { from: "checkpoint", checkpoint: deps.secrets.openCheckpoint(run.id, kept.sealed) };
  } catch (error) {
    if (!(error instanceof SecretUnreadable)) throw error;
    return { from: "nowhere", message: `the checkpoint does not open: ${error.message}` };
  }
}

/**
 * A rerun starts with copies of the files of the run it reruns (its steps before the checkpoint
 * may have saved what the steps after read), each indexed and counted as the rerun's own.
 * Those the rerun already has (its file inputs) are not copied. Gives those copied.
 */
export async function copyRerunFiles(
  { deps, run }: RunContext,
  filesDir: string,
  fileIndex: FileIndexWriter,
  has: readonly RunFile[],
): Promise<RunFile[]> {
  if (run.rerunOf === null) return [];
  const files = (await deps.files.runFiles.list(run.owner, run.rerunOf)) ?? [];
  const taken = new Set(has.map((file) => file.name));
  const from = deps.fileStore.filesDirOf(run.rerunOf);
  await mkdir(filesDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const copied: RunFile[] = [];
  for (const file of files) {
    if (taken.has(file.name)) continue;
    try {
      await copyFile(join(from, file.name), join(filesDir, file.name));
    } catch {
      // Removed by retention or by its owner meanwhile: the steps that read it fail, saying so.
      continue;
    }
    fileIndex.push(file);
    copied.push(file);
  }
  await fileIndex.flushed();
  return copied;
}
