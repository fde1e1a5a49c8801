import type { RunSessionState, ValidationError } from "./contract-types.js";

/** A response of the API that was not a success, with its status and the body's `detail`. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  /** The HTTP status, e.g. 404. */
  readonly status: number;
  /** The body's `detail`: a message, or the list of validation faults of a 422. */
  readonly detail: string | ValidationError[] | undefined;
  /** The whole error body as the server sent it. */
  readonly body: unknown;

  constructor(response: Response, body: unknown) {
    const detail = detailOf(body);
    super(`${response.status} from ${describeRequest(response)}: ${describeDetail(detail)}`);
    this.status = response.status;
    this.detail = detail;
    this.body = body;
  }
}

/** `waitForRun` gave up: the run did not reach a terminal state in time. */
export class WaitTimeoutError extends Error {
  override readonly name = "WaitTimeoutError";

  constructor(
    /** The run waited for. */
    readonly runId: string,
    /** Its state when the wait ended: `null` while queued, `undefined` if never read. */
    readonly lastState: RunSessionState | null | undefined,
    readonly timeoutMs: number,
  ) {
    super(
      `Run ${runId} did not end within ${timeoutMs} ms (last state: ${describeState(lastState)})`,
    );
  }
}

function detailOf(body: unknown): ApiError["detail"] {
  if (typeof body !== "object" || body === null || !("detail" in body)) return undefined;
  const { detail } = body;
  if (typeof detail === "string" || Array.isArray(detail)) return detail;
  return undefined;
}

function describeRequest(response: Response): string {
  try {
    return new URL(response.url).pathname;
  } catch {
    return "the API";
  }
}

function describeDetail(detail: ApiError["detail"]): string {
  if (detail === undefined) return "no detail";
  if (typeof detail === "string") return detail;
  return detail.map((fault) => `${fault.loc.join(".")}: ${fault.msg}`).join("; ");
}

function describeState(state: RunSessionState | null | undefined): string {
  if (state === undefined) return "never read";
  return state ?? "queued";
}
