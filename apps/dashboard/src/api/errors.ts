/** One problem of a 422, as FastAPI words it. */
export interface FieldIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** What went wrong with a call, in a sentence a person reads; the 422's issues when there are. */
export class CallFailed extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly issues: FieldIssue[] = [],
  ) {
    super(message);
  }
}

/**
 * FastAPI (and so the API) starts the message of a check that failed in code with "Value
 * error, "; the body keeps it, the reader needs only what follows.
 */
const VALUE_ERROR_PREFIX = /^Value error,\s*/;

/** An issue with its message as a person reads it (without FastAPI's "Value error, "). */
function readable(issue: FieldIssue): FieldIssue {
  return { ...issue, msg: String(issue.msg ?? "").replace(VALUE_ERROR_PREFIX, "") };
}

/** The call's data, or a CallFailed built from its error answer. */
export function dataOf<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error === undefined && result.response.ok) return result.data as T;
  throw failureOf(result.response, result.error);
}

/** A CallFailed from an error answer's status and `{detail}` body. */
export function failureOf(response: Response, body: unknown): CallFailed {
  const detail = (body as { detail?: unknown } | undefined)?.detail;
  if (Array.isArray(detail)) {
    const issues = (detail as FieldIssue[]).map(readable);
    const text = issues.map((issue) => `${issue.loc.join(".")}: ${issue.msg}`).join("; ");
    return new CallFailed(response.status, text || `Refused (${response.status})`, issues);
  }
  if (typeof detail === "string") {
    return new CallFailed(response.status, detail.replace(VALUE_ERROR_PREFIX, ""));
  }
  return new CallFailed(response.status, `The server answered ${response.status}`);
}

/** The message of anything thrown, an error answer's `{detail}` body included. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  const detail = (error as { detail?: unknown } | null)?.detail;
  if (typeof detail === "string") return detail.replace(VALUE_ERROR_PREFIX, "");
  if (Array.isArray(detail)) {
    return (detail as FieldIssue[])
      .map(readable)
      .map((issue) => `${issue.loc.join(".")}: ${issue.msg}`)
      .join("; ");
  }
  return String(error);
}
