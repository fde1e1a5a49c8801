import type { StorageState } from "@skillrun/engine";
import type { Profile } from "../../domain/api-types.js";
import type { Clock } from "../../domain/clock.js";
import { ProfileLimitReached, ProfileTooLarge } from "../../domain/errors.js";
import { type ProfileSummary, profileSummary } from "../../profiles/storage-state.js";
import type { SecretBox } from "../../secrets/secret-box.js";
import type { Flavour } from "../database-url.js";
import { type DirectSql, query, type TransactionPlan } from "../direct-sql.js";
import { fromJsonColumn } from "../json-column.js";
import type { Holder } from "../runs/record.js";
import {
  COUNT_PROFILES,
  DELETE_PROFILE,
  LIST_PROFILES,
  SELECT_PROFILE,
  SELECT_PROFILE_STATE,
  selectHeldRun,
  UPSERT_PROFILE,
} from "./profile-sql.js";

/** How large a profile may be, and how many one owner may keep. */
export interface ProfileLimits {
  /** PROFILE_MAX_BYTES: the storage state's size as JSON. */
  maxBytes: number;
  /** PROFILES_PER_OWNER. */
  perOwner: number;
}

/** What became of a run's save: a new version, or why not. */
export type RunSave =
  | { saved: true; version: number; bytes: number; cookies: number }
  | { saved: false; why: "too_large" | "limit" | "not_held"; bytes: number };

type ProfileRow = {
  name: string;
  version: number | string;
  bytes: number | string;
  summary: string;
  saved_by_run: string | null;
  created_at: Date;
  updated_at: Date;
};

function toProfile(row: ProfileRow): Profile {
  const summary = fromJsonColumn<ProfileSummary>(row.summary);
  return {
    name: row.name,
    version: Number(row.version),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    bytes: Number(row.bytes),
    cookies: summary.cookies,
    saved_by_run: row.saved_by_run,
    domains: summary.domains,
    origins: summary.origins,
  };
}

/** The context a profile is sealed for: it opens as this owner's profile of this name only. */
function contextOf(owner: string, name: string): string[] {
  return ["profile", owner, name];
}

/**
 * Browser profiles (docs/decisions/0054-browser-profiles.md), always read and changed within one
 * owner. The state is sealed before it reaches the database and opened only for a run; what the
 * API reads is the summary kept beside it, never the state.
 */
export class ProfileRepository {
  constructor(
    private readonly direct: DirectSql,
    private readonly flavour: Flavour,
    private readonly clock: Clock,
    private readonly box: SecretBox,
    readonly limits: ProfileLimits,
  ) {}

  async list(owner: string): Promise<Profile[]> {
    return (await this.direct.all<ProfileRow>(LIST_PROFILES, [owner])).map(toProfile);
  }

  async describe(owner: string, name: string): Promise<Profile | null> {
    const [row] = await this.direct.all<ProfileRow>(SELECT_PROFILE, [owner, name]);
    return row === undefined ? null : toProfile(row);
  }

  /**
   * Stores `state` as the owner's profile `name`, imported: its next version, or version 1.
   * ProfileTooLarge past PROFILE_MAX_BYTES; ProfileLimitReached for a new name past
   * PROFILES_PER_OWNER (counted in the write's transaction; on PostgreSQL imports of new names
   * at the same moment may pass it by a few).
   */
  async put(owner: string, name: string, state: StorageState): Promise<Profile> {
    const json = JSON.stringify(state);
    const bytes = Buffer.byteLength(json);
    if (bytes > this.limits.maxBytes) throw new ProfileTooLarge(bytes, this.limits.maxBytes);
    const written = await this.direct.run(() => this.write(owner, name, state, json, null));
    if (written === "limit") throw new ProfileLimitReached(this.limits.perOwner);
    if (written === "not_held") throw new Error("an import is held by no run");
    return toProfile(written);
  }

  /** Deletes the owner's profile `name`; false when there was none. */
  async delete(owner: string, name: string): Promise<boolean> {
    const { changes } = await this.direct.single(DELETE_PROFILE, [owner, name]);
    return changes === 1;
  }

  /**
   * The current version of the owner's profile `name`, opened, for a run that starts with it;
   * null when there is none. SecretUnreadable when it does not open (another SECRETS_KEY).
   */
  async open(
    owner: string,
    name: string,
  ): Promise<{ version: number; state: StorageState } | null> {
    const [row] = await this.direct.all<{ version: number | string; state: string }>(
      SELECT_PROFILE_STATE,
      [owner, name],
    );
    if (row === undefined) return null;
    const state = JSON.parse(this.box.open(row.state, contextOf(owner, name))) as StorageState;
    return { version: Number(row.version), state };
  }

  /**
   * Writes the storage a run's browser ended with as the next version of its profile, only while
   * the run's worker still holds it (a run cancelled or taken from its worker saves nothing),
   * within the profile's size and the owner's number of profiles.
   */
  async saveFromRun(
    holder: Holder,
    owner: string,
    name: string,
    state: StorageState,
  ): Promise<RunSave> {
    const json = JSON.stringify(state);
    const bytes = Buffer.byteLength(json);
    if (bytes > this.limits.maxBytes) return { saved: false, why: "too_large", bytes };
    const written = await this.direct.run(() => this.write(owner, name, state, json, holder));
    if (typeof written === "string") return { saved: false, why: written, bytes };
    return { saved: true, version: Number(written.version), bytes, cookies: state.cookies.length };
  }

  private *write(
    owner: string,
    name: string,
    state: StorageState,
    json: string,
    by: Holder | null,
  ): TransactionPlan<ProfileRow | "limit" | "not_held"> {
    if (by !== null) {
      const sql = selectHeldRun(this.flavour === "postgres");
      const { rows } = yield* query(sql, [by.runId, by.workerId]);
      if (rows.length === 0) return "not_held";
    }
    const { rows: counts } = yield* query<{ kept: number | string; named: number | string }>(
      COUNT_PROFILES,
      [owner, owner, name],
    );
    const [count] = counts;
    if (Number(count?.named ?? 0) === 0 && Number(count?.kept ?? 0) >= this.limits.perOwner) {
      return "limit";
    }
    const now = this.clock.now();
    const sealed = this.box.seal(json, contextOf(owner, name));
    const summary = JSON.stringify(profileSummary(state));
    const bytes = Buffer.byteLength(json);
    const { rows } = yield* query<ProfileRow>(UPSERT_PROFILE, [
      ...[owner, name, sealed, bytes, summary, by?.runId ?? null, now, now],
    ]);
    const [row] = rows;
    if (row === undefined) throw new Error("the profile's write returned no row");
    return row;
  }
}
