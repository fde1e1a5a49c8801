import type { RunSession } from "@skillrun/client";
import { type QueryClient, useQueryClient } from "@tanstack/react-query";
import { EventSourceParserStream } from "eventsource-parser/stream";
import { useEffect } from "react";
import { useApi } from "../api/api-context.js";
import { pauseReasonKey, type RunsPageData, runKey, runsListKey } from "./query-keys.js";

const RECONNECT_MS = 2_000;

/**
 * Follows `GET /v1/run/stream` while signed in and writes each run it tells of into the cached
 * run and run lists, so every page shows runs as they change. A dropped connection is opened
 * again with `Last-Event-ID`, so no change is missed.
 */
export function useRunStream(): void {
  const { client } = useApi();
  const queryClient = useQueryClient();
  useEffect(() => {
    const stop = new AbortController();
    let lastId: string | undefined;
    (async () => {
      while (!stop.signal.aborted) {
        try {
          const { response } = await client.GET("/run/stream", {
            params: { header: lastId === undefined ? {} : { "Last-Event-ID": lastId } },
            parseAs: "stream",
            signal: stop.signal,
          });
          if (response.ok && response.body) {
            const messages = response.body
              .pipeThrough(new TextDecoderStream())
              .pipeThrough(new EventSourceParserStream());
            for await (const message of messages) {
              if (message.id) lastId = message.id;
              applyRunChange(queryClient, JSON.parse(message.data) as RunSession);
            }
          } else if (response.status === 401) {
            return;
          }
        } catch {
          // Dropped or refused: try again below.
        }
        if (stop.signal.aborted) return;
        await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
      }
    })();
    return () => stop.abort();
  }, [client, queryClient]);
}

/** Puts a run as the stream sent it into the cache (it lacks `video_url`: the cached one stays). */
export function applyRunChange(queryClient: QueryClient, run: RunSession): void {
  // Why it was paused may no longer hold (resumed, paused again): read again when shown.
  queryClient.removeQueries({ queryKey: pauseReasonKey(run.id) });
  queryClient.setQueryData<RunSession>(runKey(run.id), (old) =>
    old ? { ...old, ...run, video_url: old.video_url } : old,
  );
  for (const [key, page] of queryClient.getQueriesData<RunsPageData>({
    queryKey: runsListKey(),
  })) {
    if (!page) continue;
    const at = page.runs.findIndex((listed) => listed.id === run.id);
    if (at >= 0) {
      const runs = page.runs.slice();
      runs[at] = { ...runs[at], ...run, video_url: runs[at]?.video_url ?? null };
      queryClient.setQueryData<RunsPageData>(key, { ...page, runs });
    } else if (page.first && page.matches(run) && isNewer(run, page.runs[0])) {
      // A new run on the first page of a list it belongs to: newest first. (An older run that
      // changed belongs on a later page, which is read when it is opened.)
      queryClient.setQueryData<RunsPageData>(key, { ...page, runs: [run, ...page.runs] });
    }
  }
}

/** Whether `run` comes before `first` in the list's order (created_at, then id, descending). */
function isNewer(run: RunSession, first: RunSession | undefined): boolean {
  if (!first) return true;
  if (run.created_at !== first.created_at) return run.created_at > first.created_at;
  return run.id > first.id;
}
