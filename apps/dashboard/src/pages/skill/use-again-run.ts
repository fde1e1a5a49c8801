import { useRun } from "../../api/use-run.js";
import { useLocation } from "../../router.js";

/**
 * The run being run again (`?again=<run id>`): "Run again" of a run with secret inputs comes
 * to the skill's form with that run's inputs, to have its secrets typed again.
 */
export function useAgainRun() {
  const againId = useLocation().search.get("again");
  return { againId, run: useRun(againId).data };
}
