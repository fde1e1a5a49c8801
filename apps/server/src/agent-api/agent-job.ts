import type { components } from "@skillrun/contract";
import type { ClaimedRun } from "../db/repositories/run-execution.js";
import type { RunSecrets } from "../secrets/run-secrets.js";
import { calledDefinitions, storedDefinition } from "../worker/execute-run/prepare.js";

export type AgentJob = components["schemas"]["AgentJob"];

/** Why a claimed run cannot be handed to an agent: it ends in reset with this message. */
export interface UnusableJob {
  message: string;
}

/**
 * What an agent is given to execute `run`: its definitions, its inputs with secret ones opened,
 * the secrets its skills read (those alone), and what is left of its time limit. Opened here,
 * for this run and this agent only; nothing of it is kept.
 */
export async function agentJobOf(
  run: ClaimedRun,
  secrets: RunSecrets,
  options: { leaseMs: number; now: Date },
): Promise<AgentJob | UnusableJob> {
  const definition = storedDefinition(run.definition);
  if (definition === null) {
    return { message: `skill ${run.skillId} has no usable stored definition; import it again` };
  }
  const skills = calledDefinitions(run.calledSkills);
  const opened = await secrets.open(run, [definition, ...Object.values(skills)]);
  if (!opened.ok) return { message: opened.message };
  const deadline = run.queuedUntil?.getTime() ?? options.now.getTime() + definition.timeoutMs;
  return {
    run_id: run.id,
    skill_id: run.skillId,
    attempt: run.attempt,
    lease_seconds: Math.ceil(options.leaseMs / 1000),
    time_limit_ms: Math.max(0, deadline - options.now.getTime()),
    definition: definition as unknown as Record<string, unknown>,
    skills: skills as unknown as Record<string, Record<string, unknown>>,
    inputs: opened.inputs,
    secrets: opened.secrets,
  };
}
