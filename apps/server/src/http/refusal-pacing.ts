import type { ErrorRequestHandler } from "express";
import { TooManyRequests } from "../domain/errors.js";
import { keyOf } from "./auth.js";

/** How many of one owner's 429s a second are answered at once; past them, each is held. */
const PROMPT_PER_SECOND = 10;

/**
 * How long a held 429 waits at most before it is answered (at least half of it, at random, so
 * that the answers to a crowd refused together do not come back together and return together).
 */
const HOLD_MS = 1_000;

/**
 * Holds the 429s of an owner that keeps asking after it was refused
 * (docs/decisions/0055-refusals-paced-per-owner.md): past PROMPT_PER_SECOND of them in a second,
 * each is answered after up to HOLD_MS, never later than its Retry-After. A refused request costs
 * the server nearly as much as an answered one (the key, the route, the validator, the answer); a
 * crowd of clients that retry at once without waiting for Retry-After would otherwise keep the
 * HTTP thread busy with refusals, and every other owner's requests would wait behind them.
 * Holding the answer slows exactly those clients (each waits for its answer before asking again)
 * and no client that honours Retry-After (it could not have succeeded sooner). Placed before the
 * error handler; the server's shutdown answers every held one at once.
 */
export function paceRefusals(shutdown: AbortSignal): ErrorRequestHandler {
  let second = 0;
  let refusedThisSecond = new Map<string, number>();
  const held = new Set<() => void>();
  shutdown.addEventListener("abort", () => {
    for (const release of [...held]) release();
  });
  return (error, req, res, next) => {
    const owner = keyOf(req)?.owner;
    if (!(error instanceof TooManyRequests) || owner === undefined) return next(error);
    const now = Date.now();
    if (Math.floor(now / 1000) !== second) {
      // Only this second's counts matter: what older ones held is dropped whole.
      second = Math.floor(now / 1000);
      refusedThisSecond = new Map();
    }
    const refused = (refusedThisSecond.get(owner) ?? 0) + 1;
    refusedThisSecond.set(owner, refused);
    if (refused <= PROMPT_PER_SECOND || shutdown.aborted) return next(error);
    const holdMs = Math.min(HOLD_MS * (0.5 + Math.random() / 2), error.retryAfterSeconds * 1000);
    // A client that leaves meanwhile gets nothing; its access log line says 429, aborted.
    res.status(error.status);
    const release = () => {
      clearTimeout(timer);
      res.off("close", gone);
      held.delete(release);
      next(error);
    };
    const gone = () => {
      clearTimeout(timer);
      held.delete(release);
    };
    const timer = setTimeout(release, holdMs);
    res.once("close", gone);
    held.add(release);
  };
}
