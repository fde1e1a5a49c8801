import type { RunHostResult, StorageState } from "@skillrun/engine";
import type { ProfileLimits, ProfileRepository, RunSave } from "../../db/repositories/profiles.js";
import type { ClaimedRun } from "../../db/repositories/run-execution.js";
import { keptStorageState } from "../../profiles/storage-state.js";
import { SecretUnreadable } from "../../secrets/secret-box.js";
import type { RunContext } from "../execute-run.js";
import type { PreparedRun } from "./prepare.js";

/** The run's browser profile as its process is given it: its storage now, and when it saves. */
export interface PreparedProfile {
  name: string;
  save: "on_success" | "always" | null;
  /** The current version's storage; null when none is saved yet (the browser starts blank). */
  state: StorageState | null;
  version: number | null;
}

/**
 * The run's browser profile, opened: the version current as the run starts is its snapshot, a
 * later save by another run does not reach it (docs/decisions/0054-browser-profiles.md). A
 * string when it cannot be opened (another SECRETS_KEY): the run fails at its start saying so.
 */
export function openProfile({ deps, run }: RunContext): Promise<PreparedProfile | null | string> {
  return openRunProfile(deps.profiles, run);
}

/** openProfile for a run claimed by anyone: a worker, or an agent's job being made. */
export async function openRunProfile(
  profiles: Pick<ProfileRepository, "open">,
  run: Pick<ClaimedRun, "owner" | "profile">,
): Promise<PreparedProfile | null | string> {
  if (run.profile === null) return null;
  const { name, save } = run.profile;
  try {
    const opened = await profiles.open(run.owner, name);
    return { name, save, state: opened?.state ?? null, version: opened?.version ?? null };
  } catch (error) {
    if (!(error instanceof SecretUnreadable)) throw error;
    return `browser profile ${name} cannot be read: ${error.message}`;
  }
}

/**
 * What the step log says of the profile the run starts with (never what it holds). A run that
 * goes on from a checkpoint starts with the storage the checkpoint kept instead.
 */
export function profileStartMessage(profile: PreparedProfile, fromCheckpoint: boolean): string {
  const saves = profile.save === null ? "" : `; saved back ${savedWhen(profile.save)}`;
  if (fromCheckpoint) {
    return `the browser goes on with the storage its checkpoint kept, not profile ${profile.name}'s${saves}`;
  }
  if (profile.version === null) {
    return `browser profile ${profile.name} has no saved version: the browser starts without one${saves}`;
  }
  const cookies = profile.state?.cookies.length ?? 0;
  return `the browser starts with profile ${profile.name}, version ${profile.version} (${cookies} cookies)${saves}`;
}

function savedWhen(save: "on_success" | "always"): string {
  return save === "on_success" ? "if the run finishes" : "when the run ends";
}

/** Whether a run that ends so saves its profile (`save: on_success` or `always`). */
export function endingSaves(save: "on_success" | "always", ending: RunHostResult): boolean {
  if (ending.outcome === "finished") return true;
  if (save === "on_success") return false;
  if (ending.outcome === "failed") return true;
  return ending.reason === "timeout" || ending.reason === "quota";
}

/**
 * Writes the storage the run's browser ended with (`json`, as its process reported it) as the
 * profile's next version, and says in the step log what became of it. Before the run's ending,
 * while its worker holds it: a run cancelled or taken from its worker meanwhile saves nothing.
 */
export async function saveProfile(
  { deps, run, holder }: RunContext,
  prepared: PreparedRun,
  json: string,
  ending: RunHostResult,
): Promise<void> {
  const profile = prepared.profile;
  if (profile === undefined || profile.save === null || !endingSaves(profile.save, ending)) return;
  const { limits } = deps.profiles;
  const size = Buffer.byteLength(json);
  // Measured before it is parsed: a browser's storage may be large, and this is the server's thread.
  const saved: RunSave =
    size > limits.maxBytes
      ? { saved: false, why: "too_large", bytes: size }
      : await deps.profiles.saveFromRun(
          holder,
          run.owner,
          profile.name,
          keptStorageState(JSON.parse(json) as StorageState),
        );
  const note = profileSavedNote(profile.name, saved, limits);
  if (note === null) {
    deps.logger.info(
      { profile: profile.name },
      "browser profile not saved: the run is no longer this worker's",
    );
    return;
  }
  prepared.writer.push(
    prepared.budget.admit({ runId: run.id, at: deps.clock.now(), type: "log", ...note }),
  );
}

/**
 * What the step log says of a run's profile save (a worker's, or an agent's through the
 * server); null when the run was no longer its holder's, which the step log does not hear of.
 */
export function profileSavedNote(
  name: string,
  saved: RunSave,
  limits: ProfileLimits,
): { level: "info" | "warn"; message: string } | null {
  if (saved.saved) {
    const message = `browser profile ${name} saved as version ${saved.version} (${saved.cookies} cookies, ${saved.bytes} bytes)`;
    return { level: "info", message };
  }
  const notSaved = `browser profile ${name} was not saved`;
  switch (saved.why) {
    case "too_large":
      return { level: "warn", message: profileTooLargeMessage(name, saved.bytes, limits.maxBytes) };
    case "limit":
      return {
        level: "warn",
        message: `${notSaved}: its owner keeps ${limits.perOwner} browser profiles already (PROFILES_PER_OWNER)`,
      };
    case "not_held":
      return null;
  }
}

/** The step log's line for a browser storage over PROFILE_MAX_BYTES, which is not saved. */
export function profileTooLargeMessage(name: string, bytes: number, maxBytes: number): string {
  return `browser profile ${name} was not saved: the browser's storage is ${bytes} bytes as JSON, more than PROFILE_MAX_BYTES (${maxBytes})`;
}
