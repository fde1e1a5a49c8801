import { createReadStream } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import express, { type Request, type Response, type Router } from "express";
import type { Logger } from "pino";
import { runEventsOf, stepOf, withinEventCap } from "../agent-api/agent-events.js";
import { type AgentJob, agentJobOf } from "../agent-api/agent-job.js";
import {
  AGENT_PROTOCOL,
  AGENT_PROTOCOL_HEADER,
  CANCELLED_DETAIL_ENDING,
} from "../agent-api/protocol.js";
import {
  type AgentRepository,
  type AgentSideRun,
  agentHolderId,
} from "../db/repositories/agents.js";
import type { ProfileRepository } from "../db/repositories/profiles.js";
import type { NewRunEvent } from "../db/repositories/run-events.js";
import type { Holder, RunExecutionRepository } from "../db/repositories/run-execution.js";
import type { RunFileRepository } from "../db/repositories/run-files.js";
import type { UploadedFileRepository } from "../db/repositories/uploaded-files.js";
import type { Clock } from "../domain/clock.js";
import {
  AgentProtocolMismatch,
  AgentRunNotHeld,
  AgentUploadNotFound,
  RequestInvalid,
  RunFilesQuotaExceeded,
  RunNotFound,
  StorageQuotaExceeded,
} from "../domain/errors.js";
import type { PausedFor } from "../domain/paused-for.js";
import { describedState, type StoredRunState } from "../domain/run-state-machine.js";
import type { FileStore } from "../files/file-store.js";
import { ownerOf } from "../http/auth.js";
import { type BodyOf, operation } from "../http/operation.js";
import { type ReceivedFile, receivedFile } from "../http/upload-body.js";
import type { Metrics } from "../metrics/metrics.js";
import { keptStorageState } from "../profiles/storage-state.js";
import type { RunSecrets } from "../secrets/run-secrets.js";
import { profileSavedNote } from "../worker/execute-run/profile.js";
import { pausedEventOf, resumedEventOf, unpausedEventOf } from "../worker/run-pause.js";
import { DEFAULT_WORKER_OPTIONS } from "../worker/worker.js";

export interface AgentsRouterDeps {
  agents: AgentRepository;
  execution: RunExecutionRepository;
  /** Opens a claimed run's secret inputs and the secrets it reads, for its agent. */
  runSecrets: RunSecrets;
  /** The uploads a claimed run's `file` inputs name, which its agent fetches. */
  uploads: UploadedFileRepository;
  /** The saved browser profiles client runs start with and save. */
  profiles: ProfileRepository;
  /** Tells of runs queued (on any server of the database): a waiting claim looks again. */
  queuedWakes: (listener: () => void) => () => void;
  clock: Clock;
  logger: Logger;
  /** Counts the runs agents end (skillrun_runs_ended_total). */
  metrics: Pick<Metrics, "runEnded">;
  /** Aborted when the server shuts down: waiting claims answer 204 at once. */
  shutdown: AbortSignal;
  /** How long an agent's claim holds without a call (renewed by each events call). */
  leaseMs: number;
  /** Where agents' run files and videos are kept, and their limits. */
  files: {
    store: FileStore;
    runFiles: RunFileRepository;
    /** RUN_FILES_MAX_BYTES: all of one run's files together. */
    runFilesMaxBytes: number;
    /** OWNER_STORAGE_MAX_BYTES, named in a refusal; null when there is none. */
    quotaBytes: number | null;
  };
}

/** The file an agent's multipart body brought (http/upload-body.ts took it to disk). */
function fileOf(req: Request): ReceivedFile {
  const received = receivedFile(req);
  // The spec requires the part `file`; the reader kept it unless the store failed.
  if (received === undefined) throw new Error("the uploaded file was not received");
  return received;
}

// A waiting claim looks again at least this often: a run another server queued on SQLite (no
// notifications between processes) is found within it.
const CLAIM_POLL_MS = 1000;

/**
 * The agent operations of openapi.yaml (docs/decisions/0065-agents-pull-client-runs.md): an
 * agent claims its owner's client runs by long poll, reports their step log, pauses and ending,
 * each write fenced by the agent holding the run, as a worker's writes are. The server never
 * calls an agent.
 */
export function agentsRouter(deps: AgentsRouterDeps): Router {
  const router = express.Router();
  const { agents, execution, clock, files } = deps;

  router.post(
    "/agent/claim",
    operation("agentClaim", async (req, res) => {
      checkProtocol(req, res);
      const owner = ownerOf(req);
      const { agent_id: agentId, name, version, wait = 25 } = req.body;
      await agents.touch(owner, { id: agentId, name, version });
      const job = await claimWithin(req, owner, { id: agentId, name }, wait * 1000);
      if (job === null) {
        res.status(204).end();
        return;
      }
      res.json(job);
    }),
  );

  router.post(
    "/agent/run/:id/events",
    operation("agentRunEvents", async (req, res) => {
      checkProtocol(req, res);
      const { holder, run } = await heldRun(req, req.body.agent_id);
      const body = req.body;
      const held = await execution.record(holder, {
        events: await capped(holder.runId, runEventsOf(holder.runId, body.events)),
        ...(body.data !== undefined && { data: body.data }),
        ...(body.effects !== undefined && { effects: body.effects }),
      });
      if (!held) throw notHeld(await agents.runOf(holder.runId));
      await execution.renewLeases(holder.workerId, [holder.runId], deps.leaseMs);
      const answer: Record<string, unknown> = {};
      if (body.pause !== undefined) {
        const pausedFor = pausedForOf(body.pause);
        const event = pausedEventOf(holder.runId, stepOf(body.pause.step), pausedFor, clock.now());
        answer.paused = await execution.pause(holder, pausedFor, event);
      }
      if (body.unpause === true) {
        await execution.unpause(holder, unpausedEventOf(holder.runId, clock.now()));
      }
      if (body.take_resume === true) {
        const resumed = await execution.takeResume(
          holder,
          resumedEventOf(holder.runId, clock.now()),
        );
        answer.resume = resumed === null ? null : { answer: resumed.answer };
      }
      const now = (await agents.runOf(holder.runId)) ?? run;
      res.json({ state: now.state, pause_requested: now.pauseRequested, ...answer });
    }),
  );

  router.post(
    "/agent/run/:id/end",
    operation("agentRunEnd", async (req, res) => {
      checkProtocol(req, res);
      const { holder, run } = await heldRun(req, req.body.agent_id);
      const ended = await endRun(holder, run, req.body);
      const after = await agents.runOf(holder.runId);
      if (!ended) throw notHeld(after);
      // Counted by the process that wrote the ending, as a worker's are (a cancel was counted
      // by the API that asked for it; a released run did not end).
      const state = after?.state;
      if (state === "finish" || state === "reset" || state === "timeout") {
        deps.metrics.runEnded(state, req.body.duration_ms);
      }
      res.json({ state: after?.state ?? null, pause_requested: false });
    }),
  );

  router.put(
    "/agent/run/:id/files/:name",
    operation("agentPutRunFile", async (req, res) => {
      checkProtocol(req, res);
      const { holder, run } = await heldRun(req, req.query.agent_id);
      const name = req.params.name;
      const target = files.store.runFilePathOf(holder.runId, name);
      if (target === null) {
        throw new RequestInvalid([
          {
            loc: ["path", "name"],
            msg: "Value error, not a run file's name (no separators, no leading dot, no control characters)",
            type: "value_error",
          },
        ]);
      }
      const received = fileOf(req);
      const kept = (await files.runFiles.list(run.owner, holder.runId)) ?? [];
      const others = kept.filter((file) => file.name !== name);
      const total = others.reduce((sum, file) => sum + file.bytes, 0) + received.bytes;
      if (total > files.runFilesMaxBytes) throw new RunFilesQuotaExceeded(files.runFilesMaxBytes);
      await mkdir(files.store.filesDirOf(holder.runId), { recursive: true, mode: 0o700 });
      await rename(received.path, target);
      const recorded = await files.runFiles.record(holder.runId, {
        name,
        bytes: received.bytes,
        content_type: received.mediaType,
        sha256: received.sha256,
        created_at: clock.now().toISOString(),
      });
      if (!recorded) {
        await rm(target, { force: true });
        throw new StorageQuotaExceeded(files.quotaBytes ?? 0);
      }
      res.status(204).end();
    }),
  );

  router.get(
    "/agent/run/:id/uploads/:file_id",
    operation("agentGetRunUpload", async (req, res) => {
      checkProtocol(req, res);
      const { holder, run } = await heldRun(req, req.query.agent_id);
      const fileId = req.params.file_id;
      // Only an upload one of the run's inputs names: an agent key reads nothing else.
      const inputs = (await agents.inputsOf(holder.runId)) ?? {};
      const named = Object.values(inputs).includes(fileId);
      const upload = named ? await deps.uploads.get(run.owner, fileId) : null;
      if (upload === null) throw new AgentUploadNotFound();
      const stream = createReadStream(files.store.uploadPathOf(upload.id));
      // Opened before the status is sent: an upload retention removed meanwhile is a 404.
      await new Promise<void>((resolve, reject) => {
        stream.once("open", () => resolve());
        stream.once("error", () => reject(new AgentUploadNotFound()));
      });
      res.status(200);
      res.setHeader("Content-Type", "application/octet-stream");
      res.setHeader("Content-Length", String(upload.bytes));
      await pipeline(stream, res).catch(() => res.destroy());
    }),
  );

  router.put(
    "/agent/run/:id/profile",
    operation("agentPutRunProfile", async (req, res) => {
      checkProtocol(req, res);
      const { holder, run } = await heldRun(req, req.query.agent_id);
      const profile = run.profile;
      if (profile === null || (profile.save !== "on_success" && profile.save !== "always")) {
        throw new RequestInvalid([
          {
            loc: ["path", "id"],
            msg: "Value error, the run's skill saves no browser profile",
            type: "value_error",
          },
        ]);
      }
      const state = keptStorageState(req.body);
      const saved = await deps.profiles.saveFromRun(holder, run.owner, profile.name, state);
      const note = profileSavedNote(profile.name, saved, deps.profiles.limits);
      if (saved.saved) {
        const { version, cookies, bytes } = saved;
        res.json({ saved: true, version, cookies, bytes, message: note?.message ?? "" });
      } else if (saved.why === "not_held" || note === null) {
        throw notHeld(await agents.runOf(holder.runId));
      } else {
        res.json({ saved: false, why: saved.why, bytes: saved.bytes, message: note.message });
      }
    }),
  );

  router.put(
    "/agent/run/:id/video",
    operation("agentPutRunVideo", async (req, res) => {
      checkProtocol(req, res);
      const { holder, run } = await heldRun(req, req.query.agent_id);
      const received = fileOf(req);
      const target = await files.store.pathForWriting(holder.runId);
      await rename(received.path, target);
      if (!(await files.runFiles.recordVideo(holder.runId, run.owner, received.bytes))) {
        await rm(target, { force: true });
        throw new StorageQuotaExceeded(files.quotaBytes ?? 0);
      }
      res.status(204).end();
    }),
  );

  router.get(
    "/agent/list",
    operation("listAgents", async (req, res) => {
      const now = clock.now().getTime();
      const list = await agents.list(ownerOf(req));
      res.json(
        list.map((agent) => ({
          id: agent.id,
          name: agent.name,
          version: agent.version,
          created_at: agent.createdAt.toISOString(),
          last_contact_at: agent.lastContactAt.toISOString(),
          connected: now - agent.lastContactAt.getTime() <= CONNECTED_WITHIN_MS,
          runs: agent.runs,
        })),
      );
    }),
  );

  /**
   * Claims the owner's next client run for the agent, waiting up to `waitMs` for one; hands back
   * its job, or null. A run that cannot be handed over (no usable definition, a secret not set)
   * ends in reset at once, and the agent is given the next.
   */
  /**
   * Ends client runs no agent took in time and recovers runs whose agent was lost, at most every
   * few seconds: an agent-only deployment (WORKER_CONCURRENCY=0) has no worker loop to do it.
   */
  let swept = 0;
  async function sweep(): Promise<void> {
    if (Date.now() - swept < SWEEP_EVERY_MS) return;
    swept = Date.now();
    await execution.expireWaitingClientRuns();
    await execution.recoverLost(MAX_ATTEMPTS);
  }

  async function claimWithin(
    req: Request,
    owner: string,
    agent: { id: string; name: string },
    waitMs: number,
  ): Promise<AgentJob | null> {
    const holderId = agentHolderId(agent.id);
    const deadline = Date.now() + waitMs;
    const gone = new AbortController();
    const onClose = () => gone.abort();
    req.once("close", onClose);
    try {
      for (;;) {
        if (gone.signal.aborted || deps.shutdown.aborted) return null;
        await sweep();
        const run = await execution.claim(holderId, deps.leaseMs, { owner, name: agent.name });
        if (run !== null) {
          const sources = {
            secrets: deps.runSecrets,
            uploads: deps.uploads,
            profiles: deps.profiles,
          };
          const job = await agentJobOf(run, sources, { leaseMs: deps.leaseMs, now: clock.now() });
          if ("run_id" in job) return job;
          await failUnusable({ runId: run.id, workerId: holderId }, job.message);
          continue;
        }
        const left = deadline - Date.now();
        if (left <= 0) return null;
        await wakeWithin(Math.min(left, CLAIM_POLL_MS), gone.signal);
      }
    } finally {
      req.off("close", onClose);
    }
  }

  /** Resolves after `ms`, or sooner when a run is queued, the caller leaves or the server stops. */
  function wakeWithin(ms: number, gone: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        off();
        gone.removeEventListener("abort", done);
        deps.shutdown.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      const off = deps.queuedWakes(done);
      gone.addEventListener("abort", done, { once: true });
      deps.shutdown.addEventListener("abort", done, { once: true });
    });
  }

  async function failUnusable(holder: Holder, message: string): Promise<void> {
    const error = { step: null, message };
    const event: NewRunEvent = {
      runId: holder.runId,
      at: clock.now(),
      type: "run_failed",
      message,
      data: { error },
    };
    await execution.end(holder, "reset", { error }, event);
  }

  /**
   * The run of the call's path as the calling agent holds it: 404 when it is not the key's
   * owner's (another owner's run is never told of), 409 when the agent does not hold it.
   */
  async function heldRun(
    req: Request<{ id: string }>,
    agentId: string,
  ): Promise<{ holder: Holder; run: AgentSideRun }> {
    const owner = ownerOf(req);
    const run = await agents.runOf(req.params.id);
    if (run === null || run.owner !== owner) throw new RunNotFound();
    await agents.contact(owner, agentId);
    const holder = { runId: req.params.id, workerId: agentHolderId(agentId) };
    if (run.workerId !== holder.workerId) throw notHeld(run);
    return { holder, run };
  }

  /** What the step log keeps of an agent's batch: its claim's share of events is counted here. */
  async function capped(runId: string, events: NewRunEvent[]): Promise<NewRunEvent[]> {
    if (events.length === 0) return events;
    return withinEventCap(events, await agents.eventsSinceClaim(runId));
  }

  /** Writes the ending an agent reports; false when the run was no longer the agent's. */
  async function endRun(
    holder: Holder,
    run: AgentSideRun,
    body: BodyOf<"agentRunEnd">,
  ): Promise<boolean> {
    const at = clock.now();
    const events = await capped(holder.runId, runEventsOf(holder.runId, body.events));
    const base = {
      runId: holder.runId,
      at,
      ...(body.duration_ms !== undefined && { durationMs: body.duration_ms }),
      ...(body.step && { step: stepOf(body.step) }),
    };
    const data = body.data ?? {};
    const error = body.error ?? { step: null, message: "the agent gave no reason" };
    switch (body.state) {
      case "finish":
        return execution.endOrRecordCancel(
          holder,
          "finish",
          data,
          { ...base, type: "run_finished" },
          events,
        );
      case "reset": {
        const message = error.step === null ? error.message : `${error.step}: ${error.message}`;
        const event: NewRunEvent = { ...base, type: "run_failed", message, data: { error } };
        return execution.endOrRecordCancel(holder, "reset", { ...data, error }, event, events);
      }
      case "timeout": {
        const event: NewRunEvent = {
          ...base,
          type: "run_timed_out",
          message: error.message,
          data: { error },
        };
        return execution.endOrRecordCancel(holder, "timeout", { ...data, error }, event, events);
      }
      case "cancel": {
        const event: NewRunEvent = {
          ...base,
          type: "run_cancelled",
          message: "stopped: the run was cancelled",
        };
        return execution.recordCancelled(holder, event, events);
      }
      case "release":
        return release(holder, run, base, events);
    }
  }

  /**
   * Puts a run back in the queue for another agent, unless it began a step with effects: then,
   * at most once, it ends in reset naming the step (docs/decisions/0023-side-effects-at-most-once.md).
   */
  async function release(
    holder: Holder,
    run: AgentSideRun,
    base: Omit<NewRunEvent, "type">,
    events: NewRunEvent[],
  ): Promise<boolean> {
    if (run.effectsStep !== null) {
      const step = run.effectsStep;
      const message = `the agent shut down during step ${step}; not re-run because it may have had effects (a skill with on_worker_loss: restart is re-run instead)`;
      const error = { step, message };
      const event: NewRunEvent = { ...base, type: "run_failed", message, data: { error } };
      return execution.end(holder, "reset", { error }, event, events);
    }
    if (events.length > 0 && !(await execution.record(holder, { events }))) return false;
    const message = "the agent shut down; the run was put back in the queue";
    return execution.release(holder, { ...base, type: "run_released", message });
  }

  return router;
}

// How often waiting claims sweep (see `sweep`), and how many claims a run may have: as workers.
const SWEEP_EVERY_MS = 5000;
const MAX_ATTEMPTS = DEFAULT_WORKER_OPTIONS.maxAttempts;

/** An agent is `connected` while it called within this long (an idle one calls every ~25 s). */
const CONNECTED_WITHIN_MS = 60_000;

/** Refuses a call of another protocol version, naming both, before anything is done. */
function checkProtocol(req: Request, res: Response): void {
  res.setHeader(AGENT_PROTOCOL_HEADER, AGENT_PROTOCOL);
  const spoken = req.get(AGENT_PROTOCOL_HEADER) ?? "";
  if (spoken !== AGENT_PROTOCOL) throw new AgentProtocolMismatch(AGENT_PROTOCOL, spoken);
}

function notHeld(run: { state: StoredRunState; workerId: string | null } | null): AgentRunNotHeld {
  if (run === null) return new AgentRunNotHeld("it no longer exists");
  const held = run.state === "play" || run.state === "pause";
  const state = describedState(run.state);
  // The agent tells a cancel from a loss by this ending.
  if (run.state === "cancel" && !state.endsWith(CANCELLED_DETAIL_ENDING)) {
    throw new Error("describedState no longer says what agents look for");
  }
  return new AgentRunNotHeld(held ? "another agent or worker holds it" : state);
}

function pausedForOf(pause: NonNullable<BodyOf<"agentRunEvents">["pause"]>): PausedFor {
  if (pause.reason === "ask") {
    return {
      reason: "ask",
      step: pause.step.label,
      prompt: pause.prompt ?? "",
      schema: pause.schema ?? {},
      expires_at: new Date(pause.expires_at).toISOString(),
    };
  }
  return {
    reason: "requested",
    step: pause.step.label,
    expires_at: new Date(pause.expires_at).toISOString(),
  };
}
