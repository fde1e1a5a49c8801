import { useQuery } from "@tanstack/react-query";
import { runKey } from "../live/query-keys.js";
import { useApi } from "./api-context.js";
import { dataOf } from "./errors.js";

/**
 * The run as the API has it (none is read while `id` is null); the run stream and the run's
 * events keep the cached copy current.
 */
export function useRun(id: string | null) {
  const { client } = useApi();
  return useQuery({
    queryKey: runKey(id ?? ""),
    enabled: id !== null,
    queryFn: async ({ signal }) =>
      dataOf(await client.GET("/run/{id}", { params: { path: { id: id ?? "" } }, signal })),
  });
}
