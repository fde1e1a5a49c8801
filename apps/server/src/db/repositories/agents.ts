import type { Clock } from "../../domain/clock.js";
import type { StoredRunState } from "../../domain/run-state-machine.js";
import type { DirectSql } from "../direct-sql.js";

/** An agent as `GET /v1/agent/list` shows it. */
export interface AgentInfo {
  id: string;
  name: string;
  version: string;
  createdAt: Date;
  lastContactAt: Date;
  /** The runs it holds now. */
  runs: string[];
}

/** A run as an agent's call reads it. */
export interface AgentSideRun {
  owner: string;
  state: StoredRunState;
  workerId: string | null;
  /** The step with effects under way (see RunWrite.effects), or null. */
  effectsStep: string | null;
  pauseRequested: boolean;
  /** Its browser profile and when it saves it (null: it only reads it); null when none. */
  profile: { name: string; save: string | null } | null;
}

/** The `worker_id` of the runs an agent holds: agents and workers never share one. */
export function agentHolderId(agentId: string): string {
  return `agent:${agentId}`;
}

// Agents not heard from within this long are not listed (their rows stay, and come back to the
// list when they call again).
const LISTED_WITHIN_MS = 24 * 60 * 60 * 1000;

const TOUCH = `INSERT INTO agents (owner, id, name, version, created_at, last_contact_at)
  VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT (owner, id) DO UPDATE SET name = excluded.name, version = excluded.version,
    last_contact_at = excluded.last_contact_at`;

const LIST = `SELECT id, name, version, created_at, last_contact_at FROM agents
  WHERE owner = ? AND last_contact_at >= ? ORDER BY last_contact_at DESC, id LIMIT 100`;

// The runs agents hold: an index step on (state, …) per state, filtered by owner.
const HELD = `SELECT id, worker_id FROM runs
  WHERE owner = ? AND state IN ('play', 'pause') AND worker_id LIKE 'agent:%' LIMIT 1000`;

// The index on (run_id, id) finds the claim's event and counts what follows it.
const EVENTS_SINCE_CLAIM = `SELECT COUNT(*) AS written FROM run_events
  WHERE run_id = ? AND id > (SELECT COALESCE(MAX(id), 0) FROM run_events
    WHERE run_id = ? AND type = 'run_claimed')`;

/** The agents of each owner: who called when, and what they hold. */
export class AgentRepository {
  constructor(
    private readonly direct: DirectSql,
    private readonly clock: Clock,
  ) {}

  /** Records a call of an agent (its name and version as it says now). */
  async touch(owner: string, agent: { id: string; name: string; version: string }): Promise<void> {
    const now = this.clock.now();
    await this.direct.single(TOUCH, [owner, agent.id, agent.name, agent.version, now, now]);
  }

  /** Records a later call of an agent that has claimed before. */
  async contact(owner: string, id: string): Promise<void> {
    await this.direct.single("UPDATE agents SET last_contact_at = ? WHERE owner = ? AND id = ?", [
      ...[this.clock.now(), owner, id],
    ]);
  }

  /** What an agent's call needs to know of a run: whose, where it stands, who holds it. */
  async runOf(id: string): Promise<AgentSideRun | null> {
    const [row] = await this.direct.all<{
      owner: string;
      state: string | null;
      worker_id: string | null;
      effects_step: string | null;
      pause_requested: boolean | number;
      profile: string | null;
      profile_save: string | null;
    }>(
      `SELECT owner, state, worker_id, effects_step, pause_requested, profile, profile_save
        FROM runs WHERE id = ?`,
      [id],
    );
    if (row === undefined) return null;
    return {
      owner: row.owner,
      state: row.state as StoredRunState,
      workerId: row.worker_id,
      effectsStep: row.effects_step,
      // SQLite keeps a boolean as 0 or 1.
      pauseRequested: Boolean(row.pause_requested),
      profile: row.profile === null ? null : { name: row.profile, save: row.profile_save },
    };
  }

  /** The run's stored inputs (a secret one's value is `***`); null when there is no such run. */
  async inputsOf(id: string): Promise<Record<string, unknown> | null> {
    const [row] = await this.direct.all<{ inputs: string | null }>(
      "SELECT inputs FROM runs WHERE id = ?",
      [id],
    );
    if (row === undefined) return null;
    return row.inputs === null ? {} : (JSON.parse(row.inputs) as Record<string, unknown>);
  }

  /**
   * How many events the run's step log holds since its last claim: what its holder has written
   * in this claim, besides the claim's own event (docs/decisions/0069-agents-take-files-and-profiles.md).
   */
  async eventsSinceClaim(id: string): Promise<number> {
    const [row] = await this.direct.all<{ written: number | string }>(EVENTS_SINCE_CLAIM, [id, id]);
    return Number(row?.written ?? 0);
  }

  /** The owner's agents heard from within a day, most recent first. */
  async list(owner: string): Promise<AgentInfo[]> {
    const since = new Date(this.clock.now().getTime() - LISTED_WITHIN_MS);
    const [rows, held] = await Promise.all([
      this.direct.all<{
        id: string;
        name: string;
        version: string;
        created_at: Date | string;
        last_contact_at: Date | string;
      }>(LIST, [owner, since]),
      this.direct.all<{ id: string; worker_id: string }>(HELD, [owner]),
    ]);
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      version: row.version,
      createdAt: new Date(row.created_at),
      lastContactAt: new Date(row.last_contact_at),
      runs: held.filter((run) => run.worker_id === agentHolderId(row.id)).map((run) => run.id),
    }));
  }
}
