import type { Skill } from "@skillrun/client";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { useApi } from "../../api/api-context.js";
import { dataOf } from "../../api/errors.js";
import { navigate, runPath } from "../../router.js";
import { issuesByField, localFailure } from "./field-issues.js";
import type { InputDraft } from "./input-draft.js";
import { inputValues } from "./input-values.js";
import { uploadFiles } from "./upload-files.js";

/**
 * Starts a run of the skill from a draft: its files uploaded first, then `POST /v1/run/`; on
 * success the run's page opens. `issues` holds what was refused, by input key ("" for the rest).
 */
export function useStartRun(skill: Skill) {
  const { client } = useApi();
  const [issues, setIssues] = useState<Record<string, string>>({});
  const start = useMutation({
    mutationFn: async (draft: InputDraft) => {
      const uploads = await uploadFiles(client, skill.inputs, draft);
      const read = inputValues(skill.inputs, draft, uploads.ids);
      const local = { ...uploads.issues, ...read.issues };
      if (Object.keys(local).length > 0) throw localFailure(local);
      return dataOf(
        await client.POST("/run/", { body: { skill_id: skill.id, inputs: read.values } }),
      );
    },
    onMutate: () => setIssues({}),
    onError: (error) => setIssues(issuesByField(error)),
    onSuccess: (run) => navigate(runPath(run.id)),
  });
  return { start, issues };
}
