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

export class RunNotFound extends AppError {
  readonly status = 404;
  constructor() {
    super("Run not found");
  }
}

export class SkillNotFound extends AppError {
  readonly status = 404;
  constructor() {
    super("Skill not found");
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
