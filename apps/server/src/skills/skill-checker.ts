import type { SkillDefinition, SkillDefinitionIssue } from "@skillrun/engine";
import { Piscina } from "piscina";
import type { SkillCheckResult, SkillCheckTask } from "./check-thread.js";

// The thread's module as built: beside this one in dist/, or in dist/ when this one runs from
// its source (tests), since a thread cannot load TypeScript.
const THREAD = import.meta.url.endsWith(".ts")
  ? new URL("../../dist/skills/check-thread.js", import.meta.url)
  : new URL("./check-thread.js", import.meta.url);

/** Threads that check definitions at once; the HTTP thread and the worker keep the rest. */
const THREADS = 2;
/** Memory a check may take; a definition that needs more is "too complex" as well. */
const THREAD_HEAP_MB = 256;
/** How long an idle thread is kept, so that checks in a row skip loading the engine again. */
const IDLE_MS = 60_000;

export type CheckedSkill =
  | { ok: true; definition: SkillDefinition }
  | { ok: false; issues: readonly SkillDefinitionIssue[] }
  | { ok: false; tooComplex: string };

/**
 * Checks skill definitions sent to the API on threads of their own, each within a time budget:
 * no definition, however it is built, holds the thread that serves every request, and a check
 * past its budget is stopped (its thread ends) and answered as too complex. The budget counts
 * from the request, waiting for a free thread included. A pool of piscina's: it ends a thread
 * whose task is aborted, bounds each thread's heap, and lets idle threads keep no process alive.
 */
export class SkillChecker {
  private readonly pool: Piscina<SkillCheckTask, SkillCheckResult>;

  constructor(private readonly budgetMs: number) {
    this.pool = new Piscina({
      filename: THREAD.href,
      minThreads: 0,
      maxThreads: THREADS,
      idleTimeout: IDLE_MS,
      resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
    });
  }

  async check(task: SkillCheckTask): Promise<CheckedSkill> {
    try {
      return await this.pool.run(task, { signal: AbortSignal.timeout(this.budgetMs) });
    } catch (error) {
      if (isAbort(error)) {
        return { ok: false, tooComplex: `checking it took longer than ${seconds(this.budgetMs)}` };
      }
      if ((error as NodeJS.ErrnoException | null)?.code === "ERR_WORKER_OUT_OF_MEMORY") {
        return { ok: false, tooComplex: `checking it needed more than ${THREAD_HEAP_MB} MB` };
      }
      throw error;
    }
  }

  /** Ends the threads (a check under way is abandoned). */
  async close(): Promise<void> {
    await this.pool.close({ force: true });
  }
}

function isAbort(error: unknown): boolean {
  const name = (error as Error | null)?.name;
  return name === "AbortError" || name === "TimeoutError";
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
