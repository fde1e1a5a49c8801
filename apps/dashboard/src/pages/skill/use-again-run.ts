import { useQuery } from "@tanstack/react-query";
import { useApi } from "../../api/api-context.js";
import { dataOf } from "../../api/errors.js";
import { useLocation } from "../../router.js";

/**
 * The run being run again (`?again=<run id>`): "Run again" of a run with secret inputs comes
 * to the skill's form with that run's inputs, to have its secrets typed again.
 */
export function useAgainRun() {
  const { client } = useApi();
  const againId = useLocation().search.get("again");
  const again = useQuery({
    queryKey: ["run", againId ?? ""],
    enabled: againId !== null,
    queryFn: async ({ signal }) =>
      dataOf(await client.GET("/run/{id}", { params: { path: { id: againId ?? "" } }, signal })),
  });
  return { againId, run: again.data };
}
