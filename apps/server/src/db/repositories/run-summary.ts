import type { components } from "@skillrun/contract";
import type { DirectSql } from "../direct-sql.js";

export type RunSummary = components["schemas"]["RunSummary"];

/**
 * The most runs each figure counts: every count reads at most this many index entries (and the
 * failures as many rows), however many runs an owner has. A figure of this size means "at least".
 */
export const SUMMARY_MAX_COUNTED = 100_000;

/** The most skills `failures_by_skill` names. */
const TOP_FAILING_SKILLS = 10;

/** The states the summary counts, as the API names them (`queued` is the stored null). */
const STATES = ["queued", "play", "pause", "finish", "reset", "cancel", "timeout"] as const;

/**
 * The owner's runs created at or after `since` by their state now, the skills whose runs among
 * them failed or timed out, and the owner's queued runs now: one statement, whose every arm is a
 * range of the index on (owner, state, created_at, id) cut at SUMMARY_MAX_COUNTED, on both
 * flavours alike.
 */
export async function readRunSummary(
  direct: DirectSql,
  owner: string,
  since: Date,
  now: Date,
): Promise<RunSummary> {
  const cap = SUMMARY_MAX_COUNTED;
  const params: (string | number | Date | null)[] = [];
  const countArm = (label: string, where: string, values: (string | Date)[]) => {
    params.push(owner, ...values, cap);
    return `SELECT '${label}' AS figure, CAST(COUNT(*) AS INTEGER) AS runs FROM (SELECT 1 AS one FROM runs WHERE owner = ? AND ${where} LIMIT ?) AS counted_${label}`;
  };
  const arms = STATES.map((state) =>
    state === "queued"
      ? countArm(state, "state IS NULL AND created_at >= ?", [since])
      : countArm(state, "state = ? AND created_at >= ?", [state, since]),
  );
  arms.push(countArm("queue_depth", "state IS NULL", []));
  const counts = await direct.all<{ figure: string; runs: number }>(
    arms.join(" UNION ALL "),
    params,
  );
  const figure = (name: string) => Number(counts.find((row) => row.figure === name)?.runs ?? 0);

  // Failures by skill: the two states' ranges (each cut at the cap), grouped.
  const failures = await direct.all<{ skill_id: string; state: string; runs: number }>(
    `SELECT skill_id, state, CAST(COUNT(*) AS INTEGER) AS runs FROM (
       SELECT skill_id, state FROM (SELECT skill_id, state FROM runs WHERE owner = ? AND state = 'reset' AND created_at >= ? LIMIT ?) AS failed
       UNION ALL
       SELECT skill_id, state FROM (SELECT skill_id, state FROM runs WHERE owner = ? AND state = 'timeout' AND created_at >= ? LIMIT ?) AS timed_out
     ) AS failures GROUP BY skill_id, state`,
    [owner, since, cap, owner, since, cap],
  );
  const bySkill = new Map<string, { skill_id: string; failed: number; timed_out: number }>();
  for (const row of failures) {
    const skill = bySkill.get(row.skill_id) ?? { skill_id: row.skill_id, failed: 0, timed_out: 0 };
    if (row.state === "reset") skill.failed += Number(row.runs);
    else skill.timed_out += Number(row.runs);
    bySkill.set(row.skill_id, skill);
  }
  const failuresBySkill = [...bySkill.values()]
    .sort(
      (a, b) =>
        b.failed + b.timed_out - (a.failed + a.timed_out) ||
        (a.skill_id < b.skill_id ? -1 : a.skill_id > b.skill_id ? 1 : 0),
    )
    .slice(0, TOP_FAILING_SKILLS);

  return {
    since: since.toISOString(),
    until: now.toISOString(),
    by_state: {
      queued: figure("queued"),
      play: figure("play"),
      pause: figure("pause"),
      finish: figure("finish"),
      reset: figure("reset"),
      cancel: figure("cancel"),
      timeout: figure("timeout"),
    },
    failures_by_skill: failuresBySkill,
    queue_depth: figure("queue_depth"),
  };
}
