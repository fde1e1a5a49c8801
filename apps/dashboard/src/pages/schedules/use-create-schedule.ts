import type { Skill } from "@skillrun/client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useApi } from "../../api/api-context.js";
import { CallFailed, dataOf } from "../../api/errors.js";
import { localFailure } from "../../components/run-form/field-issues.js";
import type { InputDraft } from "../../components/run-form/input-draft.js";
import { inputValues } from "../../components/run-form/input-values.js";
import { uploadFiles } from "../../components/run-form/upload-files.js";
import { navigate } from "../../router.js";
import { SCHEDULES_KEY, type ScheduleOverlap } from "./schedule-types.js";

/** The fields of a schedule beside the skill's inputs, as the form holds them. */
export interface ScheduleTiming {
  cron: string;
  timezone: string;
  overlap: ScheduleOverlap;
  catchup: string;
}

/** The timing fields a refusal can name, each shown at its own field. */
export const TIMING_FIELDS = ["cron", "timezone", "overlap", "catchup"] as const;

/** A refusal's issues: by input key, by timing field, and the rest ("") joined. */
export interface ScheduleIssues {
  inputs: Record<string, string>;
  timing: Partial<Record<(typeof TIMING_FIELDS)[number], string>>;
  other: string | undefined;
}

/** Sorts a refusal's issues by where its `loc` points: an input, a timing field, or neither. */
export function scheduleIssues(error: unknown): ScheduleIssues {
  const issues: ScheduleIssues = { inputs: {}, timing: {}, other: undefined };
  if (!(error instanceof CallFailed)) return issues;
  const rest: string[] = [];
  for (const issue of error.issues) {
    const [where, field, key] = issue.loc;
    const timing = TIMING_FIELDS.find((name) => name === field);
    if (where === "body" && field === "inputs" && typeof key === "string") {
      issues.inputs[key] = issue.msg;
    } else if (where === "body" && timing !== undefined) {
      issues.timing[timing] = issue.msg;
    } else {
      rest.push(issue.msg);
    }
  }
  issues.other = rest.length > 0 ? rest.join("; ") : undefined;
  return issues;
}

/**
 * Creates a schedule of the skill (`POST /v1/schedule`) from the run form's inputs (files
 * uploaded first, as for a run) and the timing fields; on success the schedules page opens,
 * showing its next runs as the server computed them.
 */
export function useCreateSchedule(skill: Skill) {
  const { client } = useApi();
  const queryClient = useQueryClient();
  const [issues, setIssues] = useState<ScheduleIssues>(() => scheduleIssues(undefined));
  const create = useMutation({
    mutationFn: async (form: { draft: InputDraft; timing: ScheduleTiming }) => {
      const uploads = await uploadFiles(client, skill.inputs, form.draft);
      const read = inputValues(skill.inputs, form.draft, uploads.ids);
      const local = { ...uploads.issues, ...read.issues };
      if (Object.keys(local).length > 0) throw localFailure(local);
      const { cron, timezone, overlap, catchup } = form.timing;
      return dataOf(
        await client.POST("/schedule", {
          body: {
            skill_id: skill.id,
            inputs: read.values,
            cron: cron.trim(),
            timezone: timezone.trim(),
            overlap,
            catchup: catchup.trim() || "0",
            paused: false,
          },
        }),
      );
    },
    onMutate: () => setIssues(scheduleIssues(undefined)),
    onError: (error) => setIssues(scheduleIssues(error)),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: SCHEDULES_KEY });
      navigate("/schedules");
    },
  });
  return { create, issues };
}
