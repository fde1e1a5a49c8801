import type { RunEvent, SkillrunClient } from "@skillrun/client";
import { dataOf } from "./errors.js";
import { nextCursor } from "./next-cursor.js";

/** The largest page the events API gives: an ordinary log is one page, read in one request. */
const PAGE_SIZE = 1000;

/** Every event of the run written so far, page after page of `GET /run/{id}/events`. */
export async function readRunLog(
  client: SkillrunClient,
  id: string,
  signal: AbortSignal,
): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  let cursor: string | undefined;
  do {
    const result = await client.GET("/run/{id}/events", {
      params: { path: { id }, query: { limit: PAGE_SIZE, ...(cursor && { cursor }) } },
      signal,
    });
    events.push(...dataOf(result));
    cursor = nextCursor(result.response);
  } while (cursor !== undefined && !signal.aborted);
  return events;
}
