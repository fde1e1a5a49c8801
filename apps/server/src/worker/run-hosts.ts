import { type ChildProcess, fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { setPriority } from "node:os";
import { fileURLToPath } from "node:url";
import {
  type EngineEvent,
  type FromRunHost,
  formatBytes,
  killBrowserProcesses,
  messageOf,
  type PauseRequest,
  type RecordedVideo,
  RUN_HOST_ENTRY,
  type RunFile,
  type RunHostResult,
  type RunJob,
  type StepRef,
  type StopKind,
  type ToRunHost,
} from "@skillrun/engine";
import type { Logger } from "pino";
import { residentBytesNow, watchRunMemory } from "./run-process-memory.js";
import { RunStop } from "./run-stop.js";

export interface RunHostsOptions {
  /** How many processes are kept: one per run slot (the worker's concurrency). */
  size: number;
  /**
   * The memory a run's process may hold, in MB (RUN_MEMORY_MB): its heap is capped at it, and its
   * resident memory (buffers outside the heap included) is watched; past either it is ended.
   */
  memoryMb: number;
  /** How long a run told to stop may take before its process is killed. */
  stopGraceMs: number;
  /** How long closing a run's browser (and finishing its video) may take. */
  closeMs: number;
  /** The environment of the run processes: PATH, to find ffmpeg; nothing of the server's. */
  env: Record<string, string>;
  /**
   * Whether each process keeps a browser launched ahead for its next run (WARM_BROWSERS), its
   * processes marked with the run process's own tag, and killed with them when it ends.
   */
  warmBrowsers?: boolean;
  /** Called whenever a process becomes free for a run (loaded, or done with its last run). */
  onAvailable?: () => void;
}

/** How the engine's work on a run ended, as far as the process that did it tells. */
export type HostOutcome =
  | { type: "result"; result: RunHostResult }
  /** Told to stop, the run did not within the grace (a regex that never yields): killed. */
  | { type: "killed"; reason: StopKind }
  /**
   * The process ran out of its heap (RUN_MEMORY_MB) and died, or held more resident memory than
   * that and was killed.
   */
  | { type: "out_of_memory" }
  /** The process died of something else. */
  | { type: "crashed"; message: string };

/** A run under way in a run process. */
export interface HostedRun {
  /** Settles as soon as the engine is done with the run, or its process died or was killed. */
  outcome: Promise<HostOutcome>;
  /**
   * Settles once the run's browser is closed: its video, and whether the process was lost
   * instead (then the browser's processes may still be running: the caller kills them).
   */
  closed: Promise<{ video: RecordedVideo | null; abandoned: boolean }>;
  /** Asks the run to pause before its next step (HostedRunHandlers.onPaused follows). */
  requestPause(): void;
  /** Tells the run whether somebody watches its live view (its frames then come: onFrame). */
  setLive(watched: boolean): void;
}

export interface HostedRunHandlers {
  onEvent(event: EngineEvent): void;
  /** The run's state at a step boundary, as JSON, in order with its events. */
  onCheckpoint(checkpoint: { step: string; seq: number; topLevel: boolean; json: string }): void;
  onProblem(message: string): void;
  /** The run's browser started, taking `ms`. */
  onBrowserLaunched(ms: number): void;
  /** A run file stored by the run, complete on disk. */
  onFile(file: RunFile): void;
  /** The browser's storage at the run's end, as JSON, for its profile to be saved. */
  onProfile(json: string): void;
  /**
   * The run is about to begin a step that may have effects (its first one, or each one under
   * `on_worker_loss: resume`); the step waits until this settles, and fails with the
   * rejection's message.
   */
  onEffects(step: StepRef): Promise<void>;
  /**
   * The run is paused (an `ask`, or a pause asked for) and waits until this resolves, with the
   * answer it goes on with. A rejection leaves it waiting: the run is being stopped.
   */
  onPaused(request: PauseRequest): Promise<unknown>;
  /** The run gave up waiting (a timeout inside it) and goes on without an answer. */
  onPauseAbandoned(): void;
  /** What the run's current tab shows now, a JPEG, for its live view. */
  onFrame(jpeg: Uint8Array): void;
  /** A `wait` step waits, doing nothing, until `until` (epoch ms). */
  onWaiting(step: StepRef, until: number): void;
}

// What V8 prints when a heap limit is reached; the process then aborts.
const OUT_OF_MEMORY = /heap out of memory|Reached heap limit|Allocation failed/;
const STDERR_KEPT = 4096;
const MB = 1024 * 1024;
const RESPAWN_DELAY_MS = 1000;
// A nice value: 10 is what `nice` gives by default.
const RUN_PRIORITY = 10;

/** A process taken for one run (see `RunHosts.reserve`). */
export interface ReservedHost {
  readonly reserved: true;
}

interface Host extends ReservedHost {
  child: ChildProcess;
  /** Marks the browsers it launches ahead (`--skillrun-tag=<tag>`), which die with it. */
  tag: string;
  /** The process has loaded the engine and listens (its `ready` message came). */
  ready: boolean;
  /** The end of what the process wrote to stderr, to tell why it died. */
  stderr: string;
  exited: Promise<void>;
  /** Set when the memory watch killed it: how much it held. */
  overMemory?: number;
}

/**
 * The processes runs execute in: one per run slot, started ahead (a process takes a second or
 * more to load the engine, which would eat into a run's time limit), reused from run to run, each
 * with its heap capped (`--max-old-space-size`). A process that was killed or died is replaced at
 * once, so whatever a run does (a regex that never yields, an allocation past any limit) the
 * server and its HTTP thread go on.
 */
export class RunHosts {
  private readonly idle: Host[] = [];
  private readonly hosts = new Set<Host>();
  /** Told whenever a process says it is ready. */
  private readonly readyWaiters = new Set<() => void>();
  private closing = false;

  constructor(
    private readonly options: RunHostsOptions,
    private readonly logger: Logger,
  ) {}

  /**
   * Takes a free, loaded process for a run about to be claimed; undefined when there is none (a
   * worker claims a run only with a process ready for it, so no run's time limit is spent
   * waiting for one to load). Give it back with `unreserve` when no run was claimed after all.
   */
  reserve(): ReservedHost | undefined {
    // The idle longest first: a process a run has left goes last in line.
    const index = this.idle.findIndex((host) => host.ready);
    return index < 0 ? undefined : (this.idle.splice(index, 1)[0] as Host);
  }

  /**
   * Returns a reserved process unused, first in line again: the next run goes to the process idle
   * longest, not to the one a run has just left, which is launching its next browser meanwhile
   * (docs/decisions/0071).
   */
  unreserve(reserved: ReservedHost): void {
    const host = reserved as Host;
    if (this.hosts.has(host) && !this.closing) this.idle.unshift(host);
  }

  /** Starts `job` in the reserved process; `signal` stops it, its reason a RunStop. */
  execute(
    reserved: ReservedHost,
    job: RunJob,
    handlers: HostedRunHandlers,
    signal: AbortSignal,
  ): HostedRun {
    const host = reserved as Host;
    const { child } = host;
    child.ref();
    child.channel?.ref();
    const { promise: outcome, resolve: reportOutcome } = settleable<HostOutcome>();
    const { promise: closed, resolve: reportClosed } = settleable<Awaited<HostedRun["closed"]>>();
    let engineDone = false;
    let timer: NodeJS.Timeout | undefined;
    const memory = this.watchMemory(host, handlers);

    const finish = (reusable: boolean) => {
      clearTimeout(timer);
      memory.stop();
      // A process that kept what a run allocated would start the next run over its limit.
      if (reusable && this.holdsTooMuch(host)) reusable = false;
      child.off("message", onMessage);
      child.off("exit", onExit);
      signal.removeEventListener("abort", onAbort);
      if (reusable && !this.closing && child.connected) {
        child.unref();
        child.channel?.unref();
        this.idle.push(host);
        this.options.onAvailable?.();
      } else {
        void this.discard(host);
      }
    };
    const abandon = (ending: HostOutcome) => {
      reportOutcome(ending);
      reportClosed({ video: null, abandoned: true });
      finish(false);
    };
    const onMessage = (message: FromRunHost) => {
      if (relay(host, message, handlers)) return;
      if (message.type === "result") {
        engineDone = true;
        clearTimeout(timer);
        reportOutcome({ type: "result", result: message.result });
        timer = setTimeout(() => {
          handlers.onProblem(
            `the browser did not close within ${this.options.closeMs / 1000} s; its processes were killed`,
          );
          abandon({ type: "crashed", message: "the browser did not close" });
        }, this.options.closeMs);
      } else if (message.type === "closed") {
        reportClosed({ video: message.video, abandoned: false });
        finish(true);
      }
    };
    const onExit = (code: number | null, signalName: NodeJS.Signals | null) =>
      abandon(exitOutcome(host, code, signalName));
    const onAbort = () => {
      const reason: StopKind = signal.reason instanceof RunStop ? signal.reason.kind : "lost";
      send(host, { type: "stop", reason });
      if (engineDone) return;
      // A run that does not yield (a catastrophic regex, a tight loop) never reads the message.
      timer = setTimeout(() => abandon({ type: "killed", reason }), this.options.stopGraceMs);
    };
    child.on("message", onMessage);
    child.on("exit", onExit);
    if (!this.hosts.has(host)) {
      // It died between its reservation and now: its exit was reported before anyone listened.
      onExit(child.exitCode, child.signalCode);
      return { outcome, closed, requestPause: () => undefined, setLive: () => undefined };
    }
    send(host, { type: "start", job: this.options.warmBrowsers ? warmJob(job, host.tag) : job });
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    const requestPause = () => {
      if (!engineDone) send(host, { type: "pause" });
    };
    const setLive = (watched: boolean) => {
      if (!engineDone) send(host, { type: "live", watched });
    };
    return { outcome, closed, requestPause, setLive };
  }

  /**
   * Watches the resident memory of the run's process: past RUN_MEMORY_MB the run is told why and
   * the process is killed (its exit then reports `out_of_memory`).
   */
  private watchMemory(host: Host, handlers: HostedRunHandlers): { stop(): void } {
    const { pid } = host.child;
    if (pid === undefined) return { stop: () => undefined };
    const limitMb = this.options.memoryMb;
    return watchRunMemory(
      pid,
      limitMb * MB,
      (bytes) => {
        host.overMemory = bytes;
        handlers.onProblem(
          `the run's process held ${formatBytes(bytes)} of memory, over RUN_MEMORY_MB (${limitMb} MB); it was killed`,
        );
        host.child.kill("SIGKILL");
      },
      () => handlers.onProblem("the run's process memory is not measured; only its heap is capped"),
    );
  }

  /** Whether the process holds more than a run may, idle (it is then replaced, not reused). */
  private holdsTooMuch(host: Host): boolean {
    const { pid } = host.child;
    const bytes = pid === undefined ? undefined : residentBytesNow(pid);
    return bytes !== undefined && bytes > this.options.memoryMb * MB;
  }

  /** Starts the processes of every slot, ready for runs. */
  start(): void {
    this.refill();
  }

  /**
   * Resolves once every slot's process has loaded the engine (so a run claimed now starts at
   * once), or after `withinMs` whatever the count: a process that cannot start is respawned and
   * logged, and must not keep its worker from working with the others.
   */
  ready(withinMs: number): Promise<void> {
    return new Promise((resolve) => {
      const loaded = () => [...this.hosts].filter((host) => host.ready).length;
      if (loaded() >= this.options.size) {
        resolve();
        return;
      }
      const check = () => {
        if (loaded() < this.options.size) return;
        finish();
      };
      const timer = setTimeout(() => {
        this.logger.warn(
          { ready: loaded(), size: this.options.size },
          "run processes were slow to start; working with those ready",
        );
        finish();
      }, withinMs);
      const finish = () => {
        clearTimeout(timer);
        this.readyWaiters.delete(check);
        resolve();
      };
      this.readyWaiters.add(check);
    });
  }

  /** Kills every run process; runs under way should have been stopped first. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.hosts].map((host) => this.discard(host)));
  }

  /** Starts idle processes until every slot has one. */
  private refill(): void {
    while (!this.closing && this.hosts.size < this.options.size) {
      const host = this.spawn();
      host.child.unref();
      host.child.channel?.unref();
      this.idle.push(host);
    }
  }

  private spawn(): Host {
    const child = fork(fileURLToPath(RUN_HOST_ENTRY), [], {
      execArgv: [`--max-old-space-size=${this.options.memoryMb}`],
      env: this.options.env,
      // Structured clone, as between threads: data keeps its types (no JSON round trip).
      serialization: "advanced",
      // A process group of its own: Ctrl-C in a terminal signals the server's whole group, and
      // the server drains its runs (SHUTDOWN_GRACE_SECONDS) instead of losing them with their
      // processes. The server ends these processes itself, and one whose server died exits when
      // its IPC channel closes.
      detached: true,
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    // Below the server's priority: runs that burn CPU (a regex, a loop) yield it to the HTTP
    // thread first, so requests keep being answered on a machine whose cores the runs fill.
    try {
      if (child.pid !== undefined) setPriority(child.pid, RUN_PRIORITY);
    } catch {
      // Not permitted here (some containers): the runs compete at the server's priority.
    }
    const host: Host = {
      reserved: true,
      child,
      tag: `run-process-${randomUUID()}`,
      ready: false,
      stderr: "",
      exited: new Promise((resolve) => child.once("exit", () => resolve())),
    };
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      host.stderr = (host.stderr + chunk).slice(-STDERR_KEPT);
    });
    child.on("error", (error) => this.logger.warn({ err: error }, "a run process failed"));
    const onReady = (message: FromRunHost) => {
      if (message.type !== "ready") return;
      child.off("message", onReady);
      host.ready = true;
      for (const check of [...this.readyWaiters]) check();
      if (this.idle.includes(host)) this.options.onAvailable?.();
    };
    child.on("message", onReady);
    this.hosts.add(host);
    void host.exited.then(() => {
      // A process killed (a run that would not stop, the server closing) cannot close the
      // browser it launched ahead, or the one a run took from it.
      if (this.options.warmBrowsers) killBrowserProcesses(host.tag);
      this.hosts.delete(host);
      const index = this.idle.indexOf(host);
      if (index >= 0) this.idle.splice(index, 1);
      // Not at once: a process that cannot start would otherwise be restarted in a tight loop.
      setTimeout(() => this.refill(), RESPAWN_DELAY_MS).unref();
    });
    return host;
  }

  private async discard(host: Host): Promise<void> {
    const index = this.idle.indexOf(host);
    if (index >= 0) this.idle.splice(index, 1);
    if (host.child.exitCode === null && host.child.signalCode === null) {
      host.child.kill("SIGKILL");
    }
    await host.exited;
    this.refill();
  }
}

/** The job with the tag of the browser its process launches ahead for the next run. */
function warmJob(job: RunJob, tag: string): RunJob {
  return { ...job, browser: { ...job.browser, warmTag: tag } };
}

/**
 * Passes what a run under way reports on to its handlers, and their answers back to its process;
 * false for the messages about the run's end (and any other), which `execute` handles itself.
 */
function relay(host: Host, message: FromRunHost, handlers: HostedRunHandlers): boolean {
  switch (message.type) {
    case "event":
      handlers.onEvent(message.event);
      return true;
    case "checkpoint": {
      const { step, seq, top_level: topLevel, json } = message;
      handlers.onCheckpoint({ step, seq, topLevel, json });
      return true;
    }
    case "problem":
      handlers.onProblem(message.message);
      return true;
    case "browser_launched":
      handlers.onBrowserLaunched(message.ms);
      return true;
    case "file":
      handlers.onFile(message.file);
      return true;
    case "profile":
      handlers.onProfile(message.json);
      return true;
    case "effects":
      handlers.onEffects(message.step).then(
        () => send(host, { type: "effects_recorded", error: null }),
        (error: unknown) => send(host, { type: "effects_recorded", error: messageOf(error) }),
      );
      return true;
    case "paused":
      handlers.onPaused(message.request).then(
        (answer) => send(host, { type: "resume", answer }),
        () => undefined,
      );
      return true;
    case "pause_abandoned":
      handlers.onPauseAbandoned();
      return true;
    case "waiting":
      handlers.onWaiting(message.step, Date.parse(message.until));
      return true;
    case "frame":
      handlers.onFrame(message.jpeg);
      return true;
    default:
      return false;
  }
}

/** How the run ended when its process exited under it: out of its heap, or of something else. */
function exitOutcome(
  host: Host,
  code: number | null,
  signalName: NodeJS.Signals | null,
): HostOutcome {
  if (host.overMemory !== undefined || OUT_OF_MEMORY.test(host.stderr)) {
    return { type: "out_of_memory" };
  }
  const how = signalName === null ? `exit code ${code}` : `signal ${signalName}`;
  const said = host.stderr.trim().split("\n").slice(-1)[0] ?? "";
  return { type: "crashed", message: `the run's process ended (${how})${said && `: ${said}`}` };
}

/** A promise, and what resolves it. */
function settleable<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

function send(host: Host, message: ToRunHost): void {
  // A process that just died cannot be told; its exit is reported on its own.
  if (host.child.connected) host.child.send(message, () => undefined);
}
