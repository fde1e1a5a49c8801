import type { Input, SkillrunClient } from "@skillrun/client";
import { failureOf } from "../../api/errors.js";
import type { InputDraft } from "./input-draft.js";

/**
 * Uploads the file chosen for each file input with `POST /v1/file`, one after another: the ids
 * the run is to be given, and the uploads that failed, by input key.
 */
export async function uploadFiles(
  client: SkillrunClient,
  inputs: Input[],
  draft: InputDraft,
): Promise<{ ids: Record<string, string>; issues: Record<string, string> }> {
  const ids: Record<string, string> = {};
  const issues: Record<string, string> = {};
  for (const input of inputs) {
    const file = draft[input.json_key];
    if (input.data_type !== "file" || !(file instanceof File)) continue;
    const body = new FormData();
    body.append("file", file);
    const uploaded = await client.POST("/file", {
      // The browser writes the multipart body and its boundary itself.
      body: body as unknown as { file: string },
      bodySerializer: (formData) => formData as unknown as FormData,
    });
    if (uploaded.response.ok && uploaded.data) ids[input.json_key] = uploaded.data.id;
    else {
      const failure = failureOf(uploaded.response, uploaded.error);
      issues[input.json_key] = `The upload failed: ${failure.message}`;
    }
  }
  return { ids, issues };
}
