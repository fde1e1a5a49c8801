import { formatBytes } from "@skillrun/engine";

/** One entry of a FastAPI-style 422 body: where, what and Pydantic's name for it. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/**
 * The domain's errors. Each carries the HTTP status it maps to; the one error handler in
 * http/error-handler.ts turns them into the contract's bodies.
 */
export abstract class AppError extends Error {
  abstract readonly status: number;
}

export class NotAuthenticated extends AppError {
  readonly status = 401;
  constructor() {
    super("Not authenticated");
  }
}

/** A key without the scope an operation needs (domain/scopes.ts). */
export class MissingScope extends AppError {
  readonly status = 403;
  constructor(readonly scope: string) {
    super(`This API key lacks the scope ${scope}`);
  }
}

/** A new key asked for scopes the key creating it does not have. */
export class ScopesNotHeld extends AppError {
  readonly status = 403;
  constructor(readonly scopes: string[]) {
    super(`A key can only give scopes it has; this API key lacks ${scopes.join(", ")}`);
  }
}

export class KeyNotFound extends AppError {
  readonly status = 404;
  constructor() {
    super("Key not found");
  }
}

export class RunNotFound extends AppError {
  readonly status = 404;
  constructor() {
    super("Run not found");
  }
}

/** A pause or resume the run's state does not allow: queued, ended, or not paused. */
export class RunStateConflict extends AppError {
  readonly status = 409;
  constructor(message: string) {
    super(message);
  }
}

/** A skill another of the owner's skills calls, which therefore cannot be deleted. */
export class SkillInUse extends AppError {
  readonly status = 409;
  constructor(message: string) {
    super(message);
  }
}

export class SkillNotFound extends AppError {
  readonly status = 404;
  constructor() {
    super("Skill not found");
  }
}

export class WebhookNotFound extends AppError {
  readonly status = 404;
  constructor() {
    super("Webhook not found");
  }
}

export class DeliveryNotFound extends AppError {
  readonly status = 404;
  constructor() {
    super("Delivery not found");
  }
}

/** A redelivery to an endpoint that answered 410 Gone. */
export class WebhookDisabled extends AppError {
  readonly status = 409;
  constructor() {
    super("Webhook is disabled: the endpoint answered 410 Gone");
  }
}

export class ProfileNotFound extends AppError {
  readonly status = 404;
  constructor() {
    super("Profile not found");
  }
}

export class SecretNotFound extends AppError {
  readonly status = 404;
  constructor() {
    super("Secret not found");
  }
}

export class VideoNotFound extends AppError {
  readonly status = 404;
  constructor() {
    super("Run has no video");
  }
}

/** A video address whose signature does not match its run and expiry. */
export class VideoLinkInvalid extends AppError {
  readonly status = 403;
  constructor() {
    super("Invalid video signature");
  }
}

/** A genuine video address past its expiry. */
export class VideoLinkExpired extends AppError {
  readonly status = 403;
  constructor() {
    super("Video link expired");
  }
}

// --- Files ---

/** A run file that does not exist, or a name no run file can have. */
export class UploadedFileNotFound extends AppError {
  readonly status = 404;
  constructor() {
    super("File not found");
  }
}

export class UploadedFileInUse extends AppError {
  readonly status = 409;
  constructor(runIds: string[]) {
    super(`File is used by runs that have not ended: ${runIds.join(", ")}`);
  }
}

export class RunFileNotFound extends AppError {
  readonly status = 404;
  constructor() {
    super("Run file not found");
  }
}

/** A file address whose signature does not match its run, name and expiry. */
export class FileLinkInvalid extends AppError {
  readonly status = 403;
  constructor() {
    super("Invalid file signature");
  }
}

/** A genuine file address past its expiry. */
export class FileLinkExpired extends AppError {
  readonly status = 403;
  constructor() {
    super("File link expired");
  }
}

/** A live view address whose signature is not the server's for the run and expiry. */
export class LiveLinkInvalid extends AppError {
  readonly status = 403;
  constructor() {
    super("Invalid live view signature");
  }
}

/** A genuine live view address past its expiry. */
export class LiveLinkExpired extends AppError {
  readonly status = 403;
  constructor() {
    super("Live view link expired");
  }
}

/** A run that has ended has no live view (its video shows what it did). */
export class RunEnded extends AppError {
  readonly status = 409;
  constructor() {
    super("Run has ended");
  }
}

/** An upload over FILE_MAX_BYTES. */
export class FileTooLarge extends AppError {
  readonly status = 413;
  constructor(limitBytes: number) {
    super(`File too large: over the limit of ${formatBytes(limitBytes)} (${limitBytes} bytes)`);
  }
}

/** An upload that would take its owner past OWNER_STORAGE_MAX_BYTES. */
export class StorageQuotaExceeded extends AppError {
  readonly status = 413;
  constructor(quotaBytes: number) {
    super(
      `Storage quota exceeded: this file would take the files you keep over your quota of ${formatBytes(quotaBytes)} (${quotaBytes} bytes); delete files or wait for retention`,
    );
  }
}

// --- end of files ---

/** A conditional request (`If-Match`, `If-Unmodified-Since`) whose condition does not hold. */
export class PreconditionFailed extends AppError {
  readonly status = 412;
  constructor() {
    super("Precondition Failed");
  }
}

/** A `Range` wholly outside the file; the response also says the size in `Content-Range`. */
export class RangeNotSatisfiable extends AppError {
  readonly status = 416;
  constructor() {
    super("Range Not Satisfiable");
  }
}

/** A route the contract does not have: FastAPI's plain 404. */
export class RouteNotFound extends AppError {
  readonly status = 404;
  constructor() {
    super("Not Found");
  }
}

/** Too many requests of one kind at once; `retryAfterSeconds` goes out as Retry-After. */
export class TooManyRequests extends AppError {
  readonly status = 429;
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/**
 * `POST /run/` while the owner has OWNER_MAX_QUEUED runs queued. The message names no number, so
 * that openapi.yaml's example is the body whatever the server's limit.
 */
export class QueueFull extends TooManyRequests {
  constructor() {
    super("Too many queued runs: the owner has OWNER_MAX_QUEUED runs waiting to start", 10);
  }
}

/** An owner over RATE_LIMIT_PER_MINUTE; the numbers are in the RateLimit headers. */
export class RateLimited extends TooManyRequests {
  constructor(retryAfterSeconds: number) {
    super(
      "Too many requests: this owner's rate limit is used up; retry after Retry-After seconds",
      retryAfterSeconds,
    );
  }
}

export class PayloadTooLarge extends AppError {
  readonly status = 413;
  constructor() {
    super("Request body too large");
  }
}

/** A request that fails validation; the body lists every issue. */
export class RequestInvalid extends AppError {
  readonly status = 422;
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; "));
  }
}

/** A new secret for an owner who has as many as one may have. */
export class SecretLimitReached extends RequestInvalid {
  constructor(limit: number) {
    super([
      {
        loc: ["path", "name"],
        msg: `Value error, an owner has at most ${limit} secrets; delete one first`,
        type: "value_error",
      },
    ]);
  }
}

/** A new profile past the owner's PROFILES_PER_OWNER. */
export class ProfileLimitReached extends RequestInvalid {
  constructor(limit: number) {
    super([
      {
        loc: ["path", "name"],
        msg: `Value error, an owner has at most ${limit} browser profiles (PROFILES_PER_OWNER); delete one first`,
        type: "value_error",
      },
    ]);
  }
}

/** A storage state larger, as JSON, than PROFILE_MAX_BYTES. */
export class ProfileTooLarge extends RequestInvalid {
  constructor(bytes: number, limit: number) {
    super([
      {
        loc: ["body"],
        msg: `Value error, the storage state is ${bytes} bytes as JSON; a profile holds at most ${limit} (PROFILE_MAX_BYTES)`,
        type: "value_error",
      },
    ]);
  }
}

/** An `Idempotency-Key` whose first request, within its 24 hours, had another body. */
export class IdempotencyKeyReused extends RequestInvalid {
  constructor() {
    super([
      {
        loc: ["header", "idempotency-key"],
        msg: "This Idempotency-Key was used with a different request body in the last 24 hours; send a new key for a new request",
        type: "idempotency_key_reused",
      },
    ]);
  }
}

export class ScheduleNotFound extends AppError {
  readonly status = 404;
  constructor() {
    super("Schedule not found");
  }
}

/** A schedule whose inputs no longer fit its skill cannot start a run until they are changed. */
export class ScheduleInputsInvalid extends AppError {
  readonly status = 409;
  constructor(message: string) {
    super(message);
  }
}

/** An agent that speaks another version of the agent protocol than this server. */
export class AgentProtocolMismatch extends AppError {
  readonly status = 426;
  constructor(server: string, agent: string) {
    super(
      `This server speaks agent protocol ${server}, the agent protocol ${agent}: use an agent of the server's version`,
    );
  }
}

/** An agent's write to a run it does not hold (fenced: nothing was written). */
export class AgentRunNotHeld extends AppError {
  readonly status = 409;
  constructor(state: string) {
    super(`This agent does not hold the run: ${state}`);
  }
}

/** An upload an agent asked for that its run does not take as a file input (or that is gone). */
export class AgentUploadNotFound extends AppError {
  readonly status = 404;
  constructor() {
    super("The run takes no such upload as a file input");
  }
}

/** An agent's file that would take its run's files past RUN_FILES_MAX_BYTES. */
export class RunFilesQuotaExceeded extends AppError {
  readonly status = 413;
  constructor(limitBytes: number) {
    super(
      `The run's files would take more than RUN_FILES_MAX_BYTES: ${formatBytes(limitBytes)} (${limitBytes} bytes)`,
    );
  }
}
