import type { RunSession } from "@skillrun/client";
import { useMutation } from "@tanstack/react-query";
import { useApi } from "../../api/api-context.js";
import { dataOf } from "../../api/errors.js";
import { SECRET_MASK } from "../../api/secret-mask.js";
import { navigate, runPath, skillPath } from "../../router.js";
import { useRerun } from "./use-rerun.js";

/**
 * Pausing, resuming, running the run again, and rerunning it from the step it failed at;
 * `error` is the last refusal of any of them.
 */
export function useRunActions(run: RunSession) {
  const { client } = useApi();
  const path = { path: { id: run.id } };
  const pause = useMutation({
    mutationFn: async () => dataOf(await client.POST("/run/{id}/pause", { params: path })),
  });
  const resume = useMutation({
    mutationFn: async () =>
      dataOf(await client.POST("/run/{id}/resume", { params: path, body: {} })),
  });
  const again = useMutation({
    mutationFn: async () => {
      // A secret input's value is not given back by the API: ask for it again in the form.
      if (Object.values(run.inputs ?? {}).includes(SECRET_MASK)) return null;
      const body = { skill_id: run.skill_id, inputs: run.inputs ?? null };
      return dataOf(await client.POST("/run/", { body }));
    },
    onSuccess: (started) => {
      if (started) navigate(runPath(started.id));
      else navigate(`${skillPath(run.skill_id)}?again=${encodeURIComponent(run.id)}`);
    },
  });
  const rerun = useRerun(run.id);
  return {
    pause,
    resume,
    again,
    rerun,
    error: pause.error ?? resume.error ?? again.error ?? rerun.error,
  };
}
