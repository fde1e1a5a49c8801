import type { components } from "./contract.js";
import type { RunSession } from "./contract-types.js";
import type { SkillrunClient } from "./create-client.js";
import { responseData } from "./response-data.js";

/** What a rerun may say: the step to start at (its label), and inputs of its own. */
export type RerunOptions = components["schemas"]["RerunRequest"];

/**
 * Runs the ended run `id` again from one of its steps (`POST /run/{id}/rerun`): by default the
 * step it failed at, with the inputs it had there. Resolves with the new run, queued, whose
 * `rerun_of` names the original and the step; rejects with an ApiError (409 while the run has not
 * ended, 422 at `from_step` for a step no checkpoint was kept before).
 */
export async function rerun(
  client: SkillrunClient,
  id: string,
  options: RerunOptions = {},
): Promise<RunSession> {
  return responseData(
    await client.POST("/run/{id}/rerun", { params: { path: { id } }, body: options }),
  );
}
