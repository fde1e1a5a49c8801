import { setImmediate as setImmediatePromise } from "node:timers/promises";
import express, { type Response, type Router } from "express";
import type { RunChangeEntry, RunChangeRepository } from "../db/repositories/run-changes.js";
import type { FollowedRun, RunEventRepository } from "../db/repositories/run-events.js";
import { isStorableText } from "../db/storable-text.js";
import type { RunEvent } from "../domain/api-types.js";
import type { Clock } from "../domain/clock.js";
import { RunNotFound } from "../domain/errors.js";
import { isTerminal } from "../domain/run-state-machine.js";
import { ownerOf } from "../http/auth.js";
import { openEventStream, type StreamOptions, untilNext, Waker } from "../http/event-stream.js";
import { operation } from "../http/operation.js";
import { drained, type OwnerStreams, SharedReads } from "../http/stream-limits.js";

/** The events after which a run's worker writes nothing more of it: its ending. */
const ENDINGS = new Set(["run_finished", "run_failed", "run_timed_out", "run_cancelled"]);

/**
 * How long a stream waits, once the run has ended, for its worker's last word (`run_cancelled`
 * after a cancel: the worker stops the run and saves its video first) before it closes anyway
 * (the worker was lost meanwhile).
 */
const LAST_WORD_WAIT_MS = 15_000;

/** How many events one read sends at most; a long log is sent in several. */
const READ_LIMIT = 500;

/**
 * How many characters of messages and details one read of a step log holds at most (beyond its
 * first event): what a stream holds in memory at once, and what one turn of the event loop
 * serializes, whatever the size of the log's entries.
 */
const READ_CHARS = 1_000_000;

/**
 * How long a gap in the change ids is waited for before the changes after it are sent anyway:
 * a change written with a smaller id may still be committing (PostgreSQL takes ids at insert, so
 * commits can come out of order), or it was rolled back and never comes.
 */
const GAP_WAIT_MS = 2_000;

/**
 * The live streams (Server-Sent Events), read every `pollMs` from the database, so what any
 * process writes reaches them on either flavour; every stream ends when the client leaves or
 * the server shuts down (`shutdown`).
 *
 * - `GET /v1/run/{id}/events/stream`: the run's step log, then each new event, until its ending.
 * - `GET /v1/run/stream`: each change of the owner's runs (queued, claimed, paused, resumed,
 *   ended), from now or from `Last-Event-ID`, for as long as the client stays.
 */
export function streamsRouter(deps: {
  runEvents: RunEventRepository;
  runChanges: RunChangeRepository;
  clock: Clock;
  options: StreamOptions;
  /** Each owner's open live streams on this server (OWNER_MAX_STREAMS), shared with the live views. */
  streams: OwnerStreams;
  /** Aborted when the server begins to shut down: every stream ends, so draining can finish. */
  shutdown: AbortSignal;
  /**
   * Subscribes to wake-ups (`run:<id>`, `changes`; RunSignals.onStreamWake): a woken stream
   * reads at once instead of at its next poll.
   */
  wakes: (listener: (key: string) => void) => () => void;
}): Router {
  const router = express.Router();
  router.param("id", (_req, _res, next, id: string) => {
    next(isStorableText(id) ? undefined : new RunNotFound());
  });
  const { options } = deps;
  const open = deps.streams;
  // Streams of one run (or of one owner's changes) at one place read once between them: an
  // answer serves every stream that asks within a poll, and what wakes them forgets it.
  const shared = new SharedReads(options.pollMs);
  const stopForgetting = deps.wakes((key) => shared.forget(key));
  deps.shutdown.addEventListener("abort", stopForgetting, { once: true });
  /**
   * Whether the client keeps up: one that leaves `maxBufferedBytes` unread for two heartbeats is
   * let go, its connection destroyed (ending the answer would wait behind what it does not read).
   */
  const keptUp = async (res: Response, signal: AbortSignal) => {
    // Past what the socket takes at once, let other requests have a turn of the event loop:
    // otherwise a stream whose reads and writes all resolve at once sends a whole log before
    // anything else is served.
    if (res.writableLength > res.writableHighWaterMark) await setImmediatePromise();
    const ok = await drained(res, options.maxBufferedBytes, 2 * options.heartbeatMs, signal);
    if (!ok && !signal.aborted) res.destroy();
    return ok;
  };
  const changesAfter = (owner: string, after: number) =>
    shared.read("changes", `${owner}|${after}`, () =>
      deps.runChanges.after(owner, after, READ_LIMIT),
    );
  const eventsAfter = (owner: string, runId: string, after: number | undefined) =>
    shared.read(`run:${runId}`, `${owner}|${after ?? ""}`, () =>
      deps.runEvents.follow(owner, runId, { limit: READ_LIMIT, maxChars: READ_CHARS, after }),
    );

  router.get(
    "/run/stream",
    operation("streamRuns", async (req, res) => {
      const owner = ownerOf(req);
      const lastId = req.get("Last-Event-ID");
      const release = open.take(owner);
      // Listening before the first read: no change is missed between the two.
      const waker = new Waker(deps.wakes, "changes");
      try {
        let after = lastId === undefined ? await deps.runChanges.latest() : Number(lastId);
        // The first read before the answer begins: a failure is still a 500.
        let changes = await changesAfter(owner, after);
        const stream = openEventStream(req, res, deps.shutdown);
        let lastWrite = Date.now();
        // When the first missing id was seen (a gap that may yet fill).
        let gapSeen: { id: number; at: number } | undefined;
        try {
          for (let first = true; !stream.signal.aborted; first = false) {
            if (!first) changes = await changesAfter(owner, after);
            const { sendable, gap } = contiguous(changes, after, gapSeen, Date.now());
            gapSeen = gap;
            for (const change of sendable) {
              if (change.run !== null) {
                res.write(`id: ${change.id}\nevent: run\ndata: ${JSON.stringify(change.run)}\n\n`);
                lastWrite = Date.now();
              }
              after = change.id;
              if (!(await keptUp(res, stream.signal))) break;
            }
            if (res.destroyed) break;
            if (sendable.length === READ_LIMIT) continue;
            if (Date.now() - lastWrite >= deps.options.heartbeatMs) {
              res.write(": heartbeat\n\n");
              lastWrite = Date.now();
            }
            const wait = untilNext(deps.options, lastWrite);
            // A gap may fill without a wake-up (its change committed before this stream listened).
            await waker.wait(
              gapSeen === undefined ? wait : Math.min(wait, GAP_WAIT_MS),
              stream.signal,
            );
          }
        } catch (error) {
          req.log?.error({ err: error }, "run stream failed");
        } finally {
          stream.close();
        }
      } finally {
        waker.close();
        release();
      }
    }),
  );

  router.get(
    "/run/:id/events/stream",
    operation("streamRunEvents", async (req, res) => {
      const owner = ownerOf(req);
      const runId = req.params.id;
      const lastId = req.get("Last-Event-ID");
      let after = lastId === undefined ? undefined : Number(lastId);
      const release = open.take(owner);
      // Listening before the first read: no event is missed between the two.
      const waker = new Waker(deps.wakes, `run:${runId}`);
      try {
        // The first read decides between a 404 and the stream.
        let read = await eventsAfter(owner, runId, after);
        if (read === null) throw new RunNotFound();
        if (read.events.length === 0 && hasNothingMore(read.run, deps.clock.now())) {
          // Nothing will follow: 204 is what tells EventSource to stop reconnecting.
          res.status(204).end();
          return;
        }
        const stream = openEventStream(req, res, deps.shutdown);
        let lastWrite = Date.now();
        try {
          while (!stream.signal.aborted && read !== null) {
            let ended = false;
            let stalled = false;
            for (const event of read.events) {
              send(res, event);
              after = event.id;
              if (isEnding(event)) ended = true;
              if (!(await keptUp(res, stream.signal))) {
                stalled = true;
                break;
              }
            }
            if (stalled) break;
            if (read.events.length > 0) lastWrite = Date.now();
            // A read that stopped at a bound has more of the log to send, whatever the run's state.
            if (ended || (!read.more && hasNothingMore(read.run, deps.clock.now()))) break;
            if (!read.more) {
              if (Date.now() - lastWrite >= deps.options.heartbeatMs) {
                res.write(": heartbeat\n\n");
                lastWrite = Date.now();
              }
              await waker.wait(untilNext(deps.options, lastWrite), stream.signal);
              if (stream.signal.aborted) break;
            }
            read = await eventsAfter(owner, runId, after);
          }
        } catch (error) {
          // The answer has begun: the failure can only end it (and is logged).
          req.log?.error({ err: error }, "run event stream failed");
        } finally {
          stream.close();
        }
      } finally {
        waker.close();
        release();
      }
    }),
  );
  return router;
}

/** One SSE message: the event's id (for Last-Event-ID), its type, and the RunEvent as data. */
function send(res: Response, event: RunEvent): void {
  // JSON.stringify escapes line breaks inside strings, so the data is one line.
  res.write(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
}

function isEnding(event: RunEvent): boolean {
  if (ENDINGS.has(event.type)) return true;
  // A lost worker's run that was not re-queued ended in reset with this event.
  return event.type === "worker_lost" && event.data?.requeued === false;
}

/**
 * Whether an ended run will have no more events: it was cancelled before any worker took it, its
 * log ends with its ending, or it ended long enough ago that a worker's last word would have come.
 */
function hasNothingMore(run: FollowedRun, now: Date): boolean {
  if (!isTerminal(run.state)) return false;
  if (run.workerId === null) return true;
  // Its ending was sent before (or the client resumed after it).
  if (run.lastEvent !== null && isEnding(run.lastEvent)) return true;
  return run.endTime !== null && now.getTime() - run.endTime.getTime() > LAST_WORD_WAIT_MS;
}

/**
 * The changes that can be sent after `after`: those whose ids follow on without a gap, and past
 * a gap once it has been waited for GAP_WAIT_MS (`gap`: the first missing id, and since when).
 */
function contiguous(
  changes: RunChangeEntry[],
  after: number,
  gapSeen: { id: number; at: number } | undefined,
  now: number,
): { sendable: RunChangeEntry[]; gap: { id: number; at: number } | undefined } {
  const sendable: RunChangeEntry[] = [];
  let next = after + 1;
  for (const change of changes) {
    if (change.id !== next) {
      const waited =
        gapSeen !== undefined && gapSeen.id === next && now - gapSeen.at >= GAP_WAIT_MS;
      if (!waited) {
        return { sendable, gap: gapSeen?.id === next ? gapSeen : { id: next, at: now } };
      }
    }
    sendable.push(change);
    next = change.id + 1;
  }
  return { sendable, gap: undefined };
}
