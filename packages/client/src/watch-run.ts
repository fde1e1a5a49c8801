import { EventSourceParserStream } from "eventsource-parser/stream";
import { abortableSleep } from "./abortable-sleep.js";
import type { components } from "./contract-types.js";
import type { SkillrunClient } from "./create-client.js";
import { ApiError } from "./errors.js";

/** One entry of a run's step log. */
export type RunEvent = components["schemas"]["RunEvent"];

export interface WatchRunOptions {
  /** Stops watching: the iteration ends (without an error). */
  signal?: AbortSignal;
  /** Start after this event id (as `Last-Event-ID`); from the first event by default. */
  after?: number;
  /** How many times in a row a dropped connection is opened again (default 5). */
  maxReconnects?: number;
  /** The wait before opening a dropped connection again (default 500 ms). */
  reconnectDelayMs?: number;
}

const DEFAULT_MAX_RECONNECTS = 5;
const DEFAULT_RECONNECT_DELAY_MS = 500;

/**
 * The run's step log as it happens, from `GET /run/{id}/events/stream`: every event already
 * written, then each new one, ending after the run's last event (the server then answers 204).
 * A dropped or closed connection is opened again with `Last-Event-ID`, so no event is missed or
 * repeated, also across a server restart. An error answer (a 404 for an unknown run) throws an
 * ApiError.
 *
 * ```ts
 * for await (const event of watchRun(client, run.id)) console.log(event.type, event.message);
 * ```
 */
export async function* watchRun(
  client: SkillrunClient,
  id: string,
  options: WatchRunOptions = {},
): AsyncGenerator<RunEvent, void, undefined> {
  const { signal } = options;
  const maxReconnects = options.maxReconnects ?? DEFAULT_MAX_RECONNECTS;
  const delay = options.reconnectDelayMs ?? DEFAULT_RECONNECT_DELAY_MS;
  let after = options.after;
  let failures = 0;
  while (!signal?.aborted) {
    let closedByServer = false;
    let received = 0;
    try {
      const { response } = await client.GET("/run/{id}/events/stream", {
        params: {
          path: { id },
          header: after === undefined ? {} : { "Last-Event-ID": String(after) },
        },
        parseAs: "stream",
        ...(signal && { signal }),
      });
      if (!response.ok) {
        throw new ApiError(response, await response.json().catch(() => undefined));
      }
      // 204: the run has ended and nothing follows the last event seen.
      if (response.status === 204 || response.body === null) return;
      const messages = response.body
        .pipeThrough(new TextDecoderStream())
        .pipeThrough(new EventSourceParserStream());
      for await (const message of messages) {
        const event = JSON.parse(message.data) as RunEvent;
        after = event.id;
        failures = 0;
        received += 1;
        yield event;
      }
      // The server closed the stream: after the run's last event (the next request answers
      // 204), or because it is shutting down (the next request, to it or another server, goes
      // on from the last event).
      closedByServer = true;
    } catch (error) {
      if (signal?.aborted) return;
      if (error instanceof ApiError || failures >= maxReconnects) throw error;
      failures += 1;
    }
    // Closed after sending something: open again at once. A close with nothing sent counts as a
    // failure, so a server that keeps closing cannot make this loop spin.
    if (closedByServer && received > 0) continue;
    if (closedByServer) {
      if (failures >= maxReconnects) throw new Error(`the event stream of run ${id} keeps closing`);
      failures += 1;
    }
    await abortableSleep(delay, signal ?? new AbortController().signal).catch(() => undefined);
  }
}
