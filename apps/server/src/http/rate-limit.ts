import type { RequestHandler } from "express";
import { type AugmentedRequest, MemoryStore, rateLimit } from "express-rate-limit";
import type { Logger } from "pino";
import { RateLimited } from "../domain/errors.js";
import { keyOf } from "./auth.js";

const WINDOW_MS = 60_000;

/**
 * RATE_LIMIT_PER_MINUTE requests per owner per minute, counted in this process
 * (docs/decisions/0045-rate-limits-per-owner.md). It runs right after the key check, so only
 * requests with a valid key are counted, by the key's owner: a request without a key or with a
 * wrong one is a 401 before it, and cannot use up anyone's budget. Past the limit, a 429 in the
 * API's error shape with Retry-After and the IETF draft-8 RateLimit and RateLimit-Policy headers
 * (those two go out on every counted answer). The store is the library's memory store; `close`
 * stops its timer.
 */
export function rateLimitPerOwner(options: { perMinute: number; logger: Logger }): {
  middleware: RequestHandler;
  close(): void;
} {
  const store = new MemoryStore();
  const limiter = rateLimit({
    store,
    windowMs: WINDOW_MS,
    limit: options.perMinute,
    standardHeaders: "draft-8",
    legacyHeaders: false,
    identifier: "owner",
    // Operations without a key (signed addresses) are not counted: they have no owner to count.
    skip: (req) => keyOf(req) === undefined,
    keyGenerator: (req) => keyOf(req)?.owner ?? "",
    handler: (req, _res, next) => {
      const info = (req as AugmentedRequest).rateLimit;
      const resetTime = info?.resetTime?.getTime() ?? Date.now() + WINDOW_MS;
      next(new RateLimited(Math.max(1, Math.ceil((resetTime - Date.now()) / 1000))));
    },
    // The checks of how a client's address is found: requests are keyed by owner, never by it.
    validate: { ip: false, trustProxy: false, xForwardedForHeader: false, forwardedHeader: false },
    logger: {
      warn: (error, message) => options.logger.warn({ err: error }, message ?? "rate limit"),
      error: (error, message) => options.logger.error({ err: error }, message ?? "rate limit"),
    },
  });
  return {
    middleware: limiter,
    // The store's cleaning timer is unref'd; stopping it still frees its counts at once.
    close: () => store.shutdown(),
  };
}
