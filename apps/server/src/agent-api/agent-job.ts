import type { components } from "@skillrun/contract";
import type { ProfileRepository } from "../db/repositories/profiles.js";
import type { ClaimedRun } from "../db/repositories/run-execution.js";
import type { UploadedFile, UploadedFileRepository } from "../db/repositories/uploaded-files.js";
import { FILE_ID_PATTERN } from "../domain/ids.js";
import { fileInputKeys } from "../files/file-inputs.js";
import type { RunSecrets } from "../secrets/run-secrets.js";
import { calledDefinitions, storedDefinition } from "../worker/execute-run/prepare.js";
import { openRunProfile } from "../worker/execute-run/profile.js";

export type AgentJob = components["schemas"]["AgentJob"];
type AgentJobProfile = components["schemas"]["AgentJobProfile"];

/** Why a claimed run cannot be handed to an agent: it ends in reset with this message. */
export interface UnusableJob {
  message: string;
}

/** What a job is made from besides the run: its secrets, its uploads and its saved profile. */
export interface AgentJobSources {
  secrets: RunSecrets;
  uploads: Pick<UploadedFileRepository, "get">;
  profiles: Pick<ProfileRepository, "open" | "limits">;
}

/**
 * What an agent is given to execute `run`: its definitions, its inputs with secret ones opened,
 * the secrets its skills read (those alone), the uploads its `file` inputs name, its saved
 * browser profile opened, and what is left of its time limit. Opened here, for this run and this
 * agent only; nothing of it is kept.
 */
export async function agentJobOf(
  run: ClaimedRun,
  sources: AgentJobSources,
  options: { leaseMs: number; now: Date },
): Promise<AgentJob | UnusableJob> {
  const definition = storedDefinition(run.definition);
  if (definition === null) {
    return { message: `skill ${run.skillId} has no usable stored definition; import it again` };
  }
  const skills = calledDefinitions(run.calledSkills);
  const opened = await sources.secrets.open(run, [definition, ...Object.values(skills)]);
  if (!opened.ok) return { message: opened.message };
  const profile = await profileOf(run, sources.profiles);
  if (typeof profile === "string") return { message: profile };
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
    uploads: await uploadsOf(run, definition.inputs, sources.uploads),
    ...(profile !== null && { profile }),
  };
}

/**
 * The uploads the run's `file` inputs name that still exist; an input given as a URL is the
 * agent's to fetch, and one whose upload is gone fails the run on the agent, naming it.
 */
async function uploadsOf(
  run: ClaimedRun,
  declared: Parameters<typeof fileInputKeys>[0],
  uploads: AgentJobSources["uploads"],
): Promise<UploadedFile[]> {
  const ids = new Set<string>();
  for (const key of fileInputKeys(declared, run.inputs)) {
    const value = run.inputs[key];
    if (typeof value === "string" && FILE_ID_PATTERN.test(value)) ids.add(value);
  }
  const found = await Promise.all([...ids].map((id) => uploads.get(run.owner, id)));
  return found.filter((upload) => upload !== null);
}

/** The run's saved browser profile, opened as a worker opens it; a string when it cannot be. */
async function profileOf(
  run: ClaimedRun,
  profiles: AgentJobSources["profiles"],
): Promise<AgentJobProfile | null | string> {
  const opened = await openRunProfile(profiles, run);
  if (opened === null || typeof opened === "string") return opened;
  return {
    name: opened.name,
    save: opened.save ?? "never",
    version: opened.version,
    state: opened.state as AgentJobProfile["state"],
    max_bytes: profiles.limits.maxBytes,
  };
}
