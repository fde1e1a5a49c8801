import { type RunEvent, watchRun } from "@skillrun/client";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useApi } from "../api/api-context.js";
import { runKey } from "./query-keys.js";

/** Events after which what the run page shows beside the log (the run, its files, video) moved. */
const REFRESHING = new Set<RunEvent["type"]>([
  "run_claimed",
  "run_started",
  "run_finished",
  "run_failed",
  "run_timed_out",
  "run_cancelled",
  "run_paused",
  "run_resumed",
  "run_released",
  "worker_lost",
  "data_updated",
  "video_recorded",
  "step_finished",
  // A failed browser step's screenshot is a new run file.
  "step_failed",
]);

export interface RunEvents {
  events: RunEvent[];
  /** The stream ended: the run has ended and every event is here. */
  complete: boolean;
  error: unknown;
}

/**
 * The run's step log, live: every event so far, then each new one as it is written
 * (`watchRun`, which resumes a dropped stream without losing or repeating events).
 */
export function useRunEvents(id: string): RunEvents {
  const { client } = useApi();
  const queryClient = useQueryClient();
  const [state, setState] = useState<RunEvents>({ events: [], complete: false, error: null });
  useEffect(() => {
    const stop = new AbortController();
    setState({ events: [], complete: false, error: null });
    (async () => {
      let batch: RunEvent[] = [];
      let flush: ReturnType<typeof setTimeout> | undefined;
      const publish = () => {
        flush = undefined;
        const added = batch;
        batch = [];
        setState((old) => ({ ...old, events: [...old.events, ...added] }));
      };
      try {
        for await (const event of watchRun(client, id, { signal: stop.signal })) {
          // Many events arrive at once for a run that has ended: one render for each burst.
          batch.push(event);
          flush ??= setTimeout(publish, 50);
          if (REFRESHING.has(event.type)) {
            void queryClient.invalidateQueries({ queryKey: runKey(id) });
            void queryClient.invalidateQueries({ queryKey: ["files", id] });
            if (event.type === "video_recorded") {
              void queryClient.invalidateQueries({ queryKey: ["video", id] });
            }
          }
        }
        if (flush) clearTimeout(flush);
        publish();
        if (!stop.signal.aborted) setState((old) => ({ ...old, complete: true }));
      } catch (error) {
        if (flush) clearTimeout(flush);
        publish();
        if (!stop.signal.aborted) setState((old) => ({ ...old, error }));
      }
    })();
    return () => stop.abort();
  }, [client, id, queryClient]);
  return state;
}
