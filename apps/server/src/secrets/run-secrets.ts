import { type Checkpoint, referencedSecrets, type SkillDefinition } from "@skillrun/engine";
import type { ClaimedRun } from "../db/repositories/run-execution.js";
import type { SecretRepository } from "../db/repositories/secrets.js";
import { type SecretBox, SecretUnreadable } from "./secret-box.js";
import { openSecretInputs } from "./secret-inputs.js";

/** What a run is executed with once its secrets are opened, or why it cannot start. */
export type RunSecretsOutcome =
  | { ok: true; inputs: Record<string, unknown>; secrets: Record<string, string> }
  | { ok: false; message: string };

/**
 * Opens what a claimed run needs in clear, just before it is handed to its run process: its
 * secret inputs, and the owner's secrets its skills read (`secrets.NAME`), those alone.
 */
export class RunSecrets {
  constructor(
    private readonly secrets: SecretRepository,
    private readonly box: SecretBox,
  ) {}

  /**
   * The run's inputs in clear and the secrets `skills` (the run's skill and those it calls) read;
   * not ok, with a message for the run's error, when a secret they read is not set or a sealed
   * value does not open (altered, or sealed under another key).
   */
  /** Seals a checkpoint of `runId` (see sealCheckpoint). */
  sealCheckpoint(runId: string, json: string): string {
    return sealCheckpoint(this.box, runId, json);
  }

  /** Opens a checkpoint of `runId` (see openCheckpoint). */
  openCheckpoint(runId: string, sealed: string): Checkpoint {
    return openCheckpoint(this.box, runId, sealed);
  }

  async open(run: ClaimedRun, skills: readonly SkillDefinition[]): Promise<RunSecretsOutcome> {
    try {
      const inputs =
        run.secretInputs === null
          ? run.inputs
          : { ...run.inputs, ...openSecretInputs(this.box, run.id, run.secretInputs) };
      const names = [...new Set(skills.flatMap(referencedSecrets))].sort();
      if (names.length === 0) return { ok: true, inputs, secrets: {} };
      const { values, missing } = await this.secrets.reveal(run.owner, names);
      if (missing.length > 0) return { ok: false, message: notSetMessage(missing, run.owner) };
      return { ok: true, inputs, secrets: values };
    } catch (error) {
      if (error instanceof SecretUnreadable) return { ok: false, message: error.message };
      throw error;
    }
  }
}

/** Seals a run's checkpoint (its JSON), bound to the run: it opens for that run alone. */
export function sealCheckpoint(box: SecretBox, runId: string, json: string): string {
  return box.seal(json, ["checkpoint", runId]);
}

/** A run's checkpoint, opened; SecretUnreadable when it does not open for that run. */
export function openCheckpoint(box: SecretBox, runId: string, sealed: string): Checkpoint {
  return JSON.parse(box.open(sealed, ["checkpoint", runId])) as Checkpoint;
}

function notSetMessage(missing: string[], owner: string): string {
  return missing
    .map(
      (name) =>
        `secret "${name}" is not set; set it with PUT /v1/secret/${name} or skillrun secrets set ${name} --owner ${owner}`,
    )
    .join("; ");
}
