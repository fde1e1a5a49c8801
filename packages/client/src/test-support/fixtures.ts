import type { SkillRecord, TestServer } from "@skillrun/server/test-support";
import { createSkillrunClient, type SkillrunClient } from "../create-client.js";

export { startTestServer, type TestServer } from "@skillrun/server/test-support";

/** A skill with one required number input `a`. */
export const sumSkill: SkillRecord = {
  id: "skill_sum",
  name: "Sum",
  description: null,
  inputs: [{ id: "input_a", json_key: "a", data_type: "number", required: true }],
  definition: {},
  definitionHash: "h1",
};

/** A skill without inputs. */
export const noopSkill: SkillRecord = {
  id: "skill_noop",
  name: "Noop",
  description: "Does nothing",
  inputs: [],
  definition: {},
  definitionHash: "h2",
};

/** A fetch that records every request it sends, with the time it sent it. */
export function recordingFetch(): {
  fetch: (request: Request) => Promise<Response>;
  requests: RecordedRequest[];
} {
  const requests: RecordedRequest[] = [];
  return {
    requests,
    fetch: async (request) => {
      const recorded: RecordedRequest = {
        request,
        url: new URL(request.url),
        at: performance.now(),
      };
      requests.push(recorded);
      const response = await globalThis.fetch(request);
      recorded.answeredAt = performance.now();
      return response;
    },
  };
}

/** A request a client sent: when (performance.now()), and when its answer came. */
export interface RecordedRequest {
  request: Request;
  url: URL;
  at: number;
  answeredAt?: number;
}

/** A client for a fresh API key of `owner`, owning the given skills. */
export async function clientFor(
  server: TestServer,
  owner: string,
  options: { skills?: SkillRecord[]; fetch?: (request: Request) => Promise<Response> } = {},
): Promise<SkillrunClient> {
  if (options.skills) await server.importSkills(owner, options.skills);
  return createSkillrunClient({
    baseUrl: server.baseUrl,
    apiKey: await server.keyFor(owner),
    ...(options.fetch && { fetch: options.fetch }),
  });
}

/** Starts a run of `skillId` through the API and returns its id. */
export async function startRun(
  client: SkillrunClient,
  skillId: string,
  inputs: Record<string, unknown> = {},
): Promise<string> {
  const { data, error } = await client.POST("/run/", { body: { skill_id: skillId, inputs } });
  if (!data) throw new Error(`starting a run failed: ${JSON.stringify(error)}`);
  return data.id;
}
