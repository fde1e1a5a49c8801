import { useQuery } from "@tanstack/react-query";
import { useApi } from "../../api/api-context.js";
import { dataOf } from "../../api/errors.js";
import { runKey } from "../../live/query-keys.js";

/** The run as the API has it; the run stream and its events keep the cached copy current. */
export function useRun(id: string) {
  const { client } = useApi();
  return useQuery({
    queryKey: runKey(id),
    queryFn: async ({ signal }) =>
      dataOf(await client.GET("/run/{id}", { params: { path: { id } }, signal })),
  });
}
