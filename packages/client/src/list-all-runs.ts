import type { operations, RunSession } from "./contract-types.js";
import type { SkillrunClient } from "./create-client.js";
import { findLink } from "./link-header.js";
import { responseData } from "./response-data.js";

type ListRunsQuery = NonNullable<operations["listRuns"]["parameters"]["query"]>;

export interface ListAllRunsOptions extends Omit<ListRunsQuery, "cursor"> {
  /** Stops the request in flight; iteration then throws the signal's reason. */
  signal?: AbortSignal;
}

/** Iterates over every run of the caller, newest first, fetching page after page. */
export async function* listAllRuns(
  client: SkillrunClient,
  options: ListAllRunsOptions = {},
): AsyncGenerator<RunSession, void, undefined> {
  const { signal, ...filters } = options;
  let cursor: string | undefined;
  for (;;) {
    const query: ListRunsQuery = cursor === undefined ? filters : { ...filters, cursor };
    const result = await client.GET("/run/list", { params: { query }, signal });
    const page = responseData(result);
    const next = nextCursor(result.response);
    yield* page;
    if (next === undefined) return;
    // A server repeating a cursor would otherwise keep us paging forever.
    if (next === cursor) throw new Error(`The run list returned the same cursor twice: ${next}`);
    cursor = next;
  }
}

// The `cursor` of the `rel="next"` link; the filters and limit are ours to repeat.
function nextCursor(response: Response): string | undefined {
  const target = findLink(response.headers.get("Link"), "next");
  if (target === undefined) return undefined;
  // Only the query matters, so any base resolves a relative target.
  const cursor = new URL(target, response.url || "http://localhost/").searchParams.get("cursor");
  if (!cursor) throw new Error(`The run list's next link has no cursor: ${target}`);
  return cursor;
}
