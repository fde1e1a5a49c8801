import { useMutation } from "@tanstack/react-query";
import { useApi } from "../../api/api-context.js";
import { CallFailed, dataOf } from "../../api/errors.js";
import { navigate, runPath } from "../../router.js";

/**
 * Reruns the ended run from the checkpoint it kept before step `fromStep` (a label of its step
 * log; absent: the step it failed at), with its own inputs, and opens the new run. A refusal
 * (409 while it has not ended, 422 for a step it kept no checkpoint before) is its `error`.
 */
export function useRerun(runId: string, fromStep?: string) {
  const { client } = useApi();
  return useMutation({
    mutationFn: async () => {
      const result = await client.POST("/run/{id}/rerun", {
        params: { path: { id: runId } },
        body: fromStep === undefined ? {} : { from_step: fromStep },
      });
      try {
        return dataOf(result);
      } catch (error) {
        throw aboutTheStep(error);
      }
    },
    onSuccess: (rerun) => navigate(runPath(rerun.id)),
  });
}

/**
 * A 422 in the server's words without the place it names: a rerun is sent nothing but its step,
 * so that is where every problem is ("no checkpoint is kept before step …").
 */
function aboutTheStep(error: unknown): unknown {
  if (!(error instanceof CallFailed) || error.issues.length === 0) return error;
  const text = error.issues.map((issue) => issue.msg).join("; ");
  return new CallFailed(error.status, text, error.issues);
}
