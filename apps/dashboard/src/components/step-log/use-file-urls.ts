import type { RunEvent } from "@skillrun/client";
import { useQuery } from "@tanstack/react-query";
import { useCallback } from "react";
import { useApi } from "../../api/api-context.js";
import { runFilesQuery } from "../run-files.js";

/**
 * The signed address of each of the run's files by name, for the files its step log names (a
 * failed step's screenshot): read from the run's file list, which the files panel shares, and
 * only once an event names a file. The function changes only when the list does, so the
 * memoised log is not rebuilt for nothing.
 */
export function useFileUrls(
  runId: string,
  events: RunEvent[],
): (name: string) => string | undefined {
  const { client } = useApi();
  const named = events.some((event) => typeof event.file === "string");
  const { data } = useQuery({ ...runFilesQuery(client, runId), enabled: named });
  return useCallback((name) => data?.find((file) => file.name === name)?.url, [data]);
}
