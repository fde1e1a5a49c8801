import { type RunEvent, watchRun } from "@skillrun/client";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useApi } from "../api/api-context.js";
import { readRunLog } from "../api/read-run-log.js";
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

/** Events that only end a run: nothing follows them, so the log read so far is whole. */
const ENDING = new Set<RunEvent["type"]>([
  "run_finished",
  "run_failed",
  "run_timed_out",
  "run_cancelled",
]);

/** New events are shown at most this often: one render for each burst. */
const PUBLISH_MS = 50;

/**
 * What the run page reads beside the log is read again at most this often while events arrive:
 * a run's many events (or a replay of them) make one refetch of each, not one per event.
 */
export const REFRESH_MS = 500;

export interface RunEvents {
  events: RunEvent[];
  /** The log is whole: the run has ended and every event is here. */
  complete: boolean;
  error: unknown;
}

/**
 * The run's step log, live. What is written already is read in pages of `GET /run/{id}/events`
 * (one request for an ordinary log); when it ends with the run's ending, that is all. Otherwise
 * `watchRun` follows the events after the last one read (resuming a dropped stream without
 * losing or repeating events), and the run, its files and video are read again after events that
 * move them, at most once every REFRESH_MS.
 */
export function useRunEvents(id: string): RunEvents {
  const { client } = useApi();
  const queryClient = useQueryClient();
  const [state, setState] = useState<RunEvents>({ events: [], complete: false, error: null });
  useEffect(() => {
    const stop = new AbortController();
    setState({ events: [], complete: false, error: null });
    let batch: RunEvent[] = [];
    let flush: ReturnType<typeof setTimeout> | undefined;
    const publish = () => {
      if (flush) clearTimeout(flush);
      flush = undefined;
      const added = batch;
      batch = [];
      if (added.length > 0) setState((old) => ({ ...old, events: [...old.events, ...added] }));
    };
    // The video's address is signed afresh on each read (and the player reloads it): it is read
    // again only once a video was recorded.
    let videoMoved = false;
    const refresh = refresher(() => {
      if (stop.signal.aborted) return;
      void queryClient.invalidateQueries({ queryKey: runKey(id) });
      void queryClient.invalidateQueries({ queryKey: ["files", id] });
      if (videoMoved) void queryClient.invalidateQueries({ queryKey: ["video", id] });
      videoMoved = false;
    });
    (async () => {
      try {
        const written = await readRunLog(client, id, stop.signal);
        setState((old) => ({ ...old, events: written }));
        const last = written.at(-1);
        if (last && ENDING.has(last.type)) {
          if (!stop.signal.aborted) setState((old) => ({ ...old, complete: true }));
          return;
        }
        for await (const event of watchRun(client, id, {
          signal: stop.signal,
          ...(last && { after: last.id }),
        })) {
          batch.push(event);
          flush ??= setTimeout(publish, PUBLISH_MS);
          if (event.type === "video_recorded") videoMoved = true;
          if (REFRESHING.has(event.type)) refresh.request();
        }
        publish();
        if (!stop.signal.aborted) setState((old) => ({ ...old, complete: true }));
      } catch (error) {
        publish();
        if (!stop.signal.aborted) setState((old) => ({ ...old, error }));
      }
    })();
    return () => {
      stop.abort();
      if (flush) clearTimeout(flush);
      refresh.cancel();
    };
  }, [client, id, queryClient]);
  return state;
}

/**
 * Calls `run` once for any number of requests within REFRESH_MS of the first (trailing), so a
 * burst of events reads the run once, after the burst's last state has been written.
 */
export function refresher(run: () => void) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    request() {
      timer ??= setTimeout(() => {
        timer = undefined;
        run();
      }, REFRESH_MS);
    },
    cancel() {
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
