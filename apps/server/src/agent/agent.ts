import type { Logger } from "pino";
import { RunHosts } from "../worker/run-hosts.js";
import { RunStop } from "../worker/run-stop.js";
import { type AgentRunDeps, executeJob } from "./execute-job.js";
import { KeyRefused, ProtocolRefused } from "./server-link.js";

export interface AgentOptions {
  /** How many runs execute at once (--concurrency). */
  concurrency: number;
  /** How long one claim waits on the server for a run, in seconds. */
  waitSeconds: number;
  /** The memory each run's process may hold, in MB. */
  memoryMb: number;
  /** How long a run told to stop may take before its process is killed. */
  stopGraceMs: number;
}

// Backoff between failed claims: doubling from the first to the last, with jitter.
const BACKOFF_FIRST_MS = 500;
const BACKOFF_MAX_MS = 30_000;

// How long closing a run's browser may take (the video is finished meanwhile).
const BROWSER_CLOSE_MS = 30_000;

/**
 * `skillrun agent`: takes its owner's client runs from the server and executes them on this
 * machine, up to `concurrency` at a time, each in a run process as a worker's runs are
 * (docs/decisions/0065-agents-pull-client-runs.md). It only ever calls the server: one long poll
 * per free slot, reports while runs execute. A failed call is retried with backoff; a refused
 * key or protocol ends the agent with that error.
 */
export class Agent {
  private readonly hosts: RunHosts;
  private readonly active = new Map<string, { control: AbortController; done: Promise<void> }>();
  private readonly stopping = new AbortController();
  private loops: Promise<void>[] = [];
  /** Set when the server refused the agent for good (its key, its protocol). */
  private fatal: Error | undefined;

  constructor(
    private readonly deps: Omit<AgentRunDeps, "hosts">,
    private readonly options: AgentOptions,
    env: Record<string, string>,
  ) {
    this.hosts = new RunHosts(
      {
        size: options.concurrency,
        memoryMb: options.memoryMb,
        stopGraceMs: options.stopGraceMs,
        closeMs: BROWSER_CLOSE_MS,
        env,
      },
      deps.logger,
    );
  }

  private get logger(): Logger {
    return this.deps.logger;
  }

  /** Starts the run processes and one claim loop per slot; resolves once the processes loaded. */
  async start(): Promise<void> {
    this.hosts.start();
    await this.hosts.ready(60_000);
    for (let slot = 0; slot < this.options.concurrency; slot++) this.loops.push(this.loop());
  }

  /**
   * Settles when the agent has stopped: told to (`stop`), or refused by the server for good (it
   * then rejects with why).
   */
  async stopped(): Promise<void> {
    await Promise.all(this.loops);
    if (this.fatal) throw this.fatal;
  }

  /**
   * Stops claiming, stops the runs under way and reports them released (the server puts them
   * back in the queue, or ends one that began a step with effects), then closes the processes.
   */
  async stop(): Promise<void> {
    this.stopping.abort();
    for (const run of this.active.values()) run.control.abort(new RunStop("shutdown"));
    await Promise.all(this.loops);
    await this.hosts.close();
  }

  /** One slot: claim, execute, again, until stopped. */
  private async loop(): Promise<void> {
    let failures = 0;
    while (!this.stopping.signal.aborted && this.fatal === undefined) {
      const host = await this.freeHost();
      if (host === undefined) return;
      let claimed = false;
      try {
        const job = await this.deps.server.claim(this.options.waitSeconds, this.stopping.signal);
        failures = 0;
        if (job === null) continue;
        claimed = true;
        const control = new AbortController();
        const done = executeJob({ ...this.deps, hosts: this.hosts }, job, host, control);
        this.active.set(job.run_id, { control, done });
        await done;
        this.active.delete(job.run_id);
      } catch (error) {
        if (this.stopping.signal.aborted) return;
        if (error instanceof ProtocolRefused || error instanceof KeyRefused) {
          this.fatal = error;
          this.stopping.abort();
          return;
        }
        failures += 1;
        const delay = backoffMs(failures);
        this.logger.warn(
          { err: error, retryInMs: delay },
          "could not reach the server; trying again",
        );
        await sleep(delay, this.stopping.signal);
      } finally {
        if (!claimed) this.hosts.unreserve(host);
      }
    }
  }

  /** A loaded run process for the next run; undefined once the agent stops. */
  private async freeHost() {
    for (;;) {
      const host = this.hosts.reserve();
      if (host !== undefined) return host;
      if (this.stopping.signal.aborted) return undefined;
      // A process is being replaced (the last run's was killed): it loads within seconds.
      await sleep(100, this.stopping.signal);
    }
  }
}

function backoffMs(failures: number): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** (failures - 1));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
