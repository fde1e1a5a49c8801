import { parseSkillDefinition } from "../../definition/parse.js";
import type { RunFiles } from "../../files/run-files.js";
import type { NetworkPolicy } from "../../network/policy.js";
import { LOCAL_TEST_NETWORK } from "../../network/test-support/local-network.js";
import { executeSkill } from "../../run/execute-skill.js";
import type { EngineLimits } from "../../run/limits.js";
import type { EngineEvent, ExecutionResult } from "../../run/types.js";
import type { BrowserAccess } from "../browser-access.js";

/** Runs the YAML `steps` (indented list items) with `inputs.base` set, as the worker would. */
export async function runSkill(
  steps: string,
  options: {
    base: string;
    browser: BrowserAccess;
    /** The run's files; none by default. */
    files?: RunFiles;
    signal?: AbortSignal;
    onEvent?: (event: EngineEvent) => void;
    /** Loopback allowed by default, for the fixture site. */
    network?: NetworkPolicy;
    limits?: Partial<EngineLimits>;
    /** More top-level lines of the definition (e.g. `on_dialog: dismiss\n`). */
    skillLines?: string;
  },
): Promise<ExecutionResult & { events: EngineEvent[] }> {
  const definition = parseSkillDefinition(
    `id: s\nname: S\ninputs: [{ json_key: base, data_type: string }]\n${options.skillLines ?? ""}steps:\n${steps}`,
    "s.yaml",
  );
  const events: EngineEvent[] = [];
  const result = await executeSkill({
    definition,
    inputs: { base: options.base },
    run: { id: "run_1", skill_id: "s" },
    signal: options.signal ?? new AbortController().signal,
    onEvent: (event) => {
      events.push(event);
      options.onEvent?.(event);
    },
    browser: options.browser,
    ...(options.files === undefined ? {} : { files: options.files }),
    network: options.network ?? LOCAL_TEST_NETWORK,
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  });
  return { ...result, events };
}
