import type { Response } from "express";
import { TooManyRequests } from "../domain/errors.js";

/** How long a client that refused a live stream should wait before trying again. */
const RETRY_AFTER_SECONDS = 5;

/**
 * Each owner's open live streams on this server, at most `max` at once: a stream holds a
 * connection, a database read now and then and a send buffer, so one key holder's streams are
 * bounded like its runs. Counted per server (a stream lives on one).
 */
export class OwnerStreams {
  private readonly open = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** Takes a place for one stream of `owner` (a 429 past the limit); returns its release. */
  take(owner: string): () => void {
    const count = this.open.get(owner) ?? 0;
    if (count >= this.max) {
      throw new TooManyRequests(
        `Too many live streams: at most ${this.max} open at once per owner (OWNER_MAX_STREAMS)`,
        RETRY_AFTER_SECONDS,
      );
    }
    this.open.set(owner, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(owner) ?? 1) - 1;
      if (left === 0) this.open.delete(owner);
      else this.open.set(owner, left);
    };
  }
}

/**
 * Reads that many streams make alike share one: while a read of `key` is under way, or for
 * `ttlMs` after it answered, every stream asking for it gets that answer, so a thousand streams
 * of one run cost one read and hold one copy of what it returned. A wake-up (something new was
 * written) forgets the answers of what it names at once.
 */
export class SharedReads {
  private readonly answers = new Map<string, { value: Promise<unknown>; until: number }>();

  constructor(private readonly ttlMs: number) {}

  read<T>(topic: string, key: string, load: () => Promise<T>): Promise<T> {
    const id = `${topic}|${key}`;
    const now = Date.now();
    const kept = this.answers.get(id);
    if (kept !== undefined && kept.until > now) return kept.value as Promise<T>;
    this.sweep(now);
    const value = load();
    const entry = { value, until: Number.POSITIVE_INFINITY };
    this.answers.set(id, entry);
    value.then(
      () => {
        entry.until = Date.now() + this.ttlMs;
      },
      () => {
        if (this.answers.get(id) === entry) this.answers.delete(id);
      },
    );
    return value;
  }

  /** Forgets every answer about `topic` (`run:<id>`, `changes`). */
  forget(topic: string): void {
    const prefix = `${topic}|`;
    for (const id of this.answers.keys()) if (id.startsWith(prefix)) this.answers.delete(id);
  }

  private sweep(now: number): void {
    for (const [id, entry] of this.answers) if (entry.until <= now) this.answers.delete(id);
  }
}

/**
 * Waits, after a write, until the client has taken what the stream sent beyond `maxBuffered`
 * bytes: true once it has, false when it has not within `stallMs` or the stream ended (the
 * caller then closes the stream: a client that does not read costs at most that buffer).
 */
export async function drained(
  res: Response,
  maxBuffered: number,
  stallMs: number,
  signal: AbortSignal,
): Promise<boolean> {
  if (res.writableLength <= maxBuffered) return true;
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(false), stallMs);
    const onDrain = () => done(true);
    const onAbort = () => done(false);
    res.once("drain", onDrain);
    signal.addEventListener("abort", onAbort, { once: true });
    function done(ok: boolean) {
      clearTimeout(timer);
      res.off("drain", onDrain);
      signal.removeEventListener("abort", onAbort);
      resolve(ok);
    }
  });
}
