import express, { type Response, type Router } from "express";
import type { RunEventRepository } from "../db/repositories/run-events.js";
import type { KeyedStart, RunRepository } from "../db/repositories/runs.js";
import type { SkillRepository, SkillToRun } from "../db/repositories/skills.js";
import type { UploadedFileRepository } from "../db/repositories/uploaded-files.js";
import { isStorableText } from "../db/storable-text.js";
import type { RunSession } from "../domain/api-types.js";
import type { Clock } from "../domain/clock.js";
import {
  decodeCursor,
  decodeEventCursor,
  encodeCursor,
  encodeEventCursor,
} from "../domain/cursor.js";
import {
  IdempotencyKeyReused,
  QueueFull,
  RequestInvalid,
  RunNotFound,
  RunStateConflict,
  SkillNotFound,
  VideoNotFound,
} from "../domain/errors.js";
import type { InputLimits } from "../domain/input-limits.js";
import { checkRunInputs, concurrencyOf, profileOf } from "../domain/run-inputs.js";
import { describedState, isTerminal } from "../domain/run-state-machine.js";
import { summarySince } from "../domain/summary-span.js";
import type { FileStore } from "../files/file-store.js";
import type { VideoUrlSigner } from "../files/signed-url.js";
import { ownerOf } from "../http/auth.js";
import { operation } from "../http/operation.js";
import type { Origin } from "../http/public-url.js";

const DEFAULT_PAGE_SIZE = 100;

/** The run operations of openapi.yaml. Requests reach them already validated against it. */
export function runsRouter(deps: {
  runs: RunRepository;
  runEvents: RunEventRepository;
  skills: SkillRepository;
  /** For `file` inputs, which name uploads. */
  uploads: UploadedFileRepository;
  fileStore: FileStore;
  signer: VideoUrlSigner;
  /** The base of the absolute links written for a request (see http/public-url.ts). */
  linkBase: (req: Origin) => string;
  inputLimits: InputLimits;
  clock: Clock;
}): Router {
  const { runs, runEvents, skills, fileStore, signer } = deps;
  const router = express.Router();
  // An id the database could not hold names no run (and must not reach a query).
  router.param("id", (_req, _res, next, id: string) => {
    next(isStorableText(id) ? undefined : new RunNotFound());
  });

  /** The signed address of the run's video on the server this request reached; null without one. */
  function videoUrlOf(req: Origin, runId: string): string | null {
    if (fileStore.find(runId) === null) return null;
    return signer.urlFor(deps.linkBase(req), runId);
  }

  /** `Link: <…>; rel="next"`: the address of the page after this one, on this server. */
  function setNextLink(req: Origin, res: Response, path: string, query: URLSearchParams): void {
    res.setHeader("Link", `<${deps.linkBase(req)}${path}?${query}>; rel="next"`);
  }

  function withVideoUrl(req: Origin, run: RunSession): RunSession {
    return { ...run, video_url: videoUrlOf(req, run.id) };
  }

  router.post(
    "/run/",
    operation("startRun", async (req, res) => {
      const owner = ownerOf(req);
      // The spec has checked its form; without one, every request starts a run.
      const key = req.get("Idempotency-Key");
      const idempotency = key === undefined ? undefined : { key, request: req.body };
      /** Answers a request that came with a key: a run, or the key's reuse. */
      const answerKeyed = (start: KeyedStart): void => {
        if (start.outcome === "reused") throw new IdempotencyKeyReused();
        if (start.outcome === "replayed") res.setHeader("Idempotent-Replayed", "true");
        res.json(withVideoUrl(req, start.run));
      };
      // A repeat is answered before the skill is looked at: it gets its run even when the skill
      // has changed since.
      const earlier = idempotency && (await runs.replay(owner, idempotency));
      if (earlier) return answerKeyed(earlier);

      const found = await skills.getToRun(owner, req.body.skill_id);
      if (!found) throw new SkillNotFound();
      const { inputs, concurrency, profile } = await checkedToRun(owner, found, req.body.inputs);
      // After the checks: a 429 says that this very request would have been queued.
      if (await runs.queueFull(owner)) throw new QueueFull();
      const client =
        req.body.environment === "client"
          ? { timeoutMs: await skills.timeoutMsOf(owner, found.skill.id) }
          : null;
      const run = {
        ...{ owner, skill: found.skill, inputs, concurrency, profile, client },
        // The request's span, which the run's follows (tracing on).
        traceParent: req.traceparent ?? null,
      };
      if (idempotency) return answerKeyed(await runs.createOnce(run, idempotency));
      res.json(withVideoUrl(req, await runs.create(run)));
    }),
  );

  /** The inputs of a run of `found` as checked and stored, and its concurrency limit. */
  const checkedToRun = (
    owner: string,
    found: SkillToRun,
    given: Record<string, unknown> | null | undefined,
  ) => checkRunInputs(deps, owner, found, given);

  router.post(
    "/run/:id/rerun",
    operation("rerunRun", async (req, res) => {
      const owner = ownerOf(req);
      const original = await runs.get(owner, req.params.id);
      if (!original) throw new RunNotFound();
      if (!isTerminal(original.state ?? null)) {
        const state = describedState(original.state ?? null);
        throw new RunStateConflict(`Run cannot be rerun until it has ended: ${state}`);
      }
      const body: { from_step?: string; inputs?: Record<string, unknown> } = req.body ?? {};
      const step = body.from_step ?? failedStep(original);
      if (step === null) {
        throw fromStepInvalid("the run did not fail at a step: say which step to start at");
      }
      const kept = await runs.checkpoint(original.id, step);
      if (kept === null && original.environment === "client") {
        // docs/decisions/0066-client-runs-start-over.md
        throw fromStepInvalid(
          "a client run keeps no checkpoints (its agent sends none), so it cannot be rerun from a step; start it again with POST /run/",
        );
      }
      if (kept === null) {
        const labels = await runs.checkpointLabels(original.id);
        throw fromStepInvalid(
          `no checkpoint is kept before step ${step}; this run can be rerun from: ${labels.length === 0 ? "no step" : labels.join(", ")}`,
        );
      }
      if (kept.sealed === null) {
        throw fromStepInvalid(
          `the checkpoint before step ${step} was ${kept.bytes} bytes, more than RUN_CHECKPOINT_MAX_BYTES, and was not kept`,
        );
      }
      const found = await skills.getToRun(owner, original.skill_id);
      if (!found) throw new SkillNotFound();
      const ownInputs = body.inputs !== undefined;
      // Without inputs of its own, the rerun goes on with those its checkpoint holds; the stored
      // ones (secret values masked) are what it shows.
      const { inputs, concurrency, profile } = ownInputs
        ? await checkedToRun(owner, found, body.inputs)
        : {
            inputs: original.inputs ?? {},
            concurrency: concurrencyOf(found, original.inputs ?? {}),
            profile: profileOf(found, original.inputs ?? {}),
          };
      if (await runs.queueFull(owner)) throw new QueueFull();
      const rerun = await runs.createRerun(
        {
          ...{ owner, skill: found.skill, inputs, concurrency, profile },
          traceParent: req.traceparent ?? null,
        },
        { runId: original.id, kept: { ...kept, sealed: kept.sealed }, ownInputs },
      );
      res.status(201).json(withVideoUrl(req, rerun));
    }),
  );

  // Declared before /run/:id so that `list` is never taken for an id.
  router.get(
    "/run/list",
    operation("listRuns", async (req, res) => {
      const { skill_id: skillId, state_filter: states } = req.query;
      const after = cursorParam(req.query.cursor, decodeCursor);
      const limit = req.query.limit ?? DEFAULT_PAGE_SIZE;
      const page = await runs.list(ownerOf(req), {
        skillId,
        // `queued` is the filter's name for the state null.
        states: states?.map((state) => (state === "queued" ? null : state)),
        limit,
        after,
      });
      if (page.next) {
        const next = new URLSearchParams();
        if (skillId !== undefined) next.set("skill_id", skillId);
        for (const state of states ?? []) next.append("state_filter", state);
        next.set("limit", String(limit));
        next.set("cursor", encodeCursor(page.next));
        setNextLink(req, res, "/v1/run/list", next);
      }
      res.json(page.runs.map((run) => withVideoUrl(req, run)));
    }),
  );

  // Declared before /run/:id so that `summary` is never taken for an id.
  router.get(
    "/run/summary",
    operation("getRunSummary", async (req, res) => {
      const since = summarySince(req.query.since, deps.clock.now());
      res.json(await runs.summary(ownerOf(req), since));
    }),
  );

  router.get(
    "/run/:id",
    operation("getRun", async (req, res) => {
      const run = await runs.get(ownerOf(req), req.params.id);
      if (!run) throw new RunNotFound();
      res.json(withVideoUrl(req, run));
    }),
  );

  router.post(
    "/run/:id/cancel",
    operation("cancelRun", async (req, res) => {
      const state = await runs.cancel(ownerOf(req), req.params.id);
      // A queued run is always cancelled to "cancel", so null here means "no such run".
      if (state === null) throw new RunNotFound();
      res.json(state);
    }),
  );

  router.get(
    "/run/:id/events",
    operation("listRunEvents", async (req, res) => {
      const runId = req.params.id;
      const after = cursorParam(req.query.cursor, decodeEventCursor);
      const limit = req.query.limit ?? DEFAULT_PAGE_SIZE;
      const page = await runEvents.list(ownerOf(req), runId, { limit, after });
      if (page === null) throw new RunNotFound();
      if (page.next !== undefined) {
        const next = new URLSearchParams({
          limit: String(limit),
          cursor: encodeEventCursor(page.next),
        });
        setNextLink(req, res, `/v1/run/${encodeURIComponent(runId)}/events`, next);
      }
      res.json(page.events);
    }),
  );

  router.get(
    "/run/:id/video_url",
    operation("getRunVideoUrl", async (req, res) => {
      const run = await runs.get(ownerOf(req), req.params.id);
      if (!run) throw new RunNotFound();
      const url = videoUrlOf(req, run.id);
      if (url === null) throw new VideoNotFound();
      res.json(url);
    }),
  );

  return router;
}

/** The `cursor` query parameter decoded, undefined when absent; a 422 when it is not one. */
function cursorParam<T>(
  text: string | undefined,
  decode: (text: string) => T | null,
): T | undefined {
  if (text === undefined) return undefined;
  const cursor = decode(text);
  if (cursor === null) {
    throw new RequestInvalid([
      {
        loc: ["query", "cursor"],
        msg: "Value error, not a cursor of this list",
        type: "value_error",
      },
    ]);
  }
  return cursor;
}

/** The label of the step an ended run failed at, from its `data.error`; null when none. */
function failedStep(run: RunSession): string | null {
  const error = (run.data as { error?: { step?: unknown } } | null)?.error;
  return typeof error?.step === "string" ? error.step : null;
}

/** A 422 at `["body", "from_step"]`. */
function fromStepInvalid(message: string): RequestInvalid {
  return new RequestInvalid([
    { loc: ["body", "from_step"], msg: `Value error, ${message}`, type: "value_error" },
  ]);
}
