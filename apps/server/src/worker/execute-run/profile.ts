import type { RunHostResult, StorageState } from "@skillrun/engine";
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
export async function openProfile({
  deps,
  run,
}: RunContext): Promise<PreparedProfile | null | string> {
  if (run.profile === null) return null;
  const { name, save } = run.profile;
  try {
    const opened = await deps.profiles.open(run.owner, name);
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
  const { maxBytes, perOwner } = deps.profiles.limits;
  const log = (level: "info" | "warn", message: string) =>
    prepared.writer.push(
      prepared.budget.admit({ runId: run.id, at: deps.clock.now(), type: "log", level, message }),
    );
  const notSaved = `browser profile ${profile.name} was not saved`;
  const size = Buffer.byteLength(json);
  // Measured before it is parsed: a browser's storage may be large, and this is the server's thread.
  if (size > maxBytes) {
    log(
      "warn",
      `${notSaved}: the browser's storage is ${size} bytes as JSON, more than PROFILE_MAX_BYTES (${maxBytes})`,
    );
    return;
  }
  const state = keptStorageState(JSON.parse(json) as StorageState);
  const saved = await deps.profiles.saveFromRun(holder, run.owner, profile.name, state);
  if (saved.saved) {
    log(
      "info",
      `browser profile ${profile.name} saved as version ${saved.version} (${saved.cookies} cookies, ${saved.bytes} bytes)`,
    );
  } else if (saved.why === "too_large") {
    log(
      "warn",
      `${notSaved}: the browser's storage is ${saved.bytes} bytes as JSON, more than PROFILE_MAX_BYTES (${maxBytes})`,
    );
  } else if (saved.why === "limit") {
    log(
      "warn",
      `${notSaved}: its owner keeps ${perOwner} browser profiles already (PROFILES_PER_OWNER)`,
    );
  } else {
    deps.logger.info(
      { profile: profile.name },
      "browser profile not saved: the run is no longer this worker's",
    );
  }
}
