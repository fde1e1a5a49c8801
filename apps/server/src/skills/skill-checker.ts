import type { SkillDefinition, SkillDefinitionIssue } from "@skillrun/engine";
import type { Logger } from "pino";
import { Piscina } from "piscina";
import type { SkillCheckResult, SkillCheckTask } from "./check-thread.js";

// The thread's module as built: beside this one in dist/, or in dist/ when this one runs from
// its source (tests), since a thread cannot load TypeScript.
const THREAD = import.meta.url.endsWith(".ts")
  ? new URL("../../dist/skills/check-thread.js", import.meta.url)
  : new URL("./check-thread.js", import.meta.url);

/** Threads that check definitions at once; the HTTP thread and the worker keep the rest. */
const THREADS = 2;
/**
 * Memory a check may take; a definition that needs more is "too complex" as well. The most a
 * definition in the tests needs is 120 to 128 MB (a list of 130,001 numbers, 254 KB of JSON,
 * skills-api.db.test.ts). Each thread's heap counts in the server's memory: at 256 MB, two threads
 * checking hostile bodies could hold over half a gigabyte (docs/decisions/0041).
 */
const THREAD_HEAP_MB = 160;
/**
 * The young generation of each thread (V8's default is 32 MB of new space): most of what a check
 * allocates dies young, and a smaller nursery collects it more often for a third less memory per
 * thread. Checks cost about a quarter more CPU.
 */
const THREAD_YOUNG_MB = 8;
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
  /**
   * Checks wait for a thread here, not in piscina's queue: piscina does not replace a thread that
   * ran out of heap or past its budget while the pool may shrink to none (minThreads 0), so the
   * checks queued behind it waited for their own budget to end and were answered "too complex".
   * Handed over only when a thread is free, a check always finds one or has one started for it.
   */
  private readonly turns = new Turns(THREADS);

  constructor(
    private readonly budgetMs: number,
    logger?: Logger,
  ) {
    this.pool = new Piscina({
      filename: THREAD.href,
      minThreads: 0,
      maxThreads: THREADS,
      idleTimeout: IDLE_MS,
      resourceLimits: {
        maxOldGenerationSizeMb: THREAD_HEAP_MB,
        maxYoungGenerationSizeMb: THREAD_YOUNG_MB,
      },
    });
    // A thread that fails with no check of its own (it ran out of heap while being ended for a
    // check past its budget) is reported on the pool: with no listener, an error event would end
    // the process. The check was answered already; there is nothing left to do but say so.
    this.pool.on("error", (error: unknown) => {
      logger?.warn({ err: error }, "a skill check thread failed after its check was answered");
    });
  }

  async check(task: SkillCheckTask): Promise<CheckedSkill> {
    const signal = AbortSignal.timeout(this.budgetMs);
    try {
      await this.turns.take(signal);
      try {
        return await this.pool.run(task, { signal });
      } finally {
        this.turns.give();
      }
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

/** At most `count` holders at once; the others wait in order, each until its signal aborts. */
class Turns {
  private held = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly count: number) {}

  /** Resolves once a turn is this caller's; rejects with the signal's reason if it aborts first. */
  take(signal: AbortSignal): Promise<void> {
    if (this.held < this.count) {
      this.held += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const start = () => {
        signal.removeEventListener("abort", leave);
        resolve();
      };
      const leave = () => {
        this.waiting.splice(this.waiting.indexOf(start), 1);
        reject(signal.reason);
      };
      this.waiting.push(start);
      signal.addEventListener("abort", leave, { once: true });
    });
  }

  /** Ends a turn: the first waiting caller's begins (the count held stays the same). */
  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held -= 1;
  }
}
