import { NetworkRefused } from "../network/guard.js";
import { withTimeout } from "../run/abort.js";
import { type Fetched, fetchHops } from "./fetch-hops.js";
import { ResponseRejected } from "./http-response.js";
import { BodyTooLarge } from "./read-body.js";
import type { StepContext } from "./step-context.js";

/** What one request sends besides its address. */
export interface ExchangeRequest {
  method: string;
  headers: Record<string, string>;
  body?: string | undefined;
  follow: boolean;
  cookies?: ((url: string) => Promise<string | undefined>) | undefined;
}

/**
 * Sends a request (hop by hop, see fetchHops) and hands the answer to `use` (reading or saving
 * its body), all within `timeout`; turns what goes wrong into a message naming `target`.
 */
export async function exchange<T>(
  url: string,
  request: ExchangeRequest,
  /** How long the whole exchange may take, in ms, and as the message says it (`30s`). */
  timeout: { ms: number; text: string },
  target: string,
  context: StepContext,
  use: (fetched: Fetched, answered: string) => Promise<T>,
): Promise<T> {
  const timed = withTimeout(
    context.signal,
    timeout.ms,
    () => new Error(`${target} timed out after ${timeout.text}`),
  );
  try {
    const fetched = await fetchHops(url, {
      ...request,
      guard: context.network.guard,
      dispatcher: context.network.dispatcher(),
      signal: timed.signal,
    });
    return await use(fetched, answeredBy(fetched, target));
  } catch (error) {
    // The answer's own failures already say what was wrong with it.
    if (error instanceof BodyTooLarge || error instanceof ResponseRejected) throw error;
    if (timed.timedOut()) throw timed.signal.reason;
    // An aborted run or step timeout is told apart by the engine; the message does not matter.
    if (context.signal.aborted) throw error;
    const refused = refusalOf(error);
    if (refused !== undefined) throw new Error(`${target} refused: ${refused.message}`);
    throw new Error(`${target} failed: ${networkCause(error)}`);
  } finally {
    timed.dispose();
  }
}

/**
 * What a message about the response names: the request, or after redirects the address that
 * answered, since that is where the status or body came from; the request is named after it.
 */
function answeredBy(fetched: Fetched, target: string): string {
  return fetched.redirected ? `${fetched.url} (redirected from ${target})` : target;
}

/** The guard's refusal behind a fetch failure (e.g. a redirect to a private address). */
function refusalOf(error: unknown): NetworkRefused | undefined {
  let cause: unknown = error;
  for (let depth = 0; depth < 4 && cause instanceof Error; depth += 1) {
    if (cause instanceof NetworkRefused) return cause;
    cause = cause.cause;
  }
  return undefined;
}

/** fetch says only "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND, …) is in its cause. */
export function networkCause(error: unknown): string {
  let cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
  // Trying several addresses of a host fails with one error per address.
  if (cause instanceof AggregateError && cause.errors.length > 0) cause = cause.errors[0];
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return cause.message || code || cause.name;
  }
  return String(cause);
}
