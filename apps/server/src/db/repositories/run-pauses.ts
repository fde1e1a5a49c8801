import { checkAnswer } from "@skillrun/engine";
import type { Clock } from "../../domain/clock.js";
import type { ValidationIssue } from "../../domain/errors.js";
import { depthExceeds } from "../../domain/input-limits.js";
import type { PausedFor, ResumeInput } from "../../domain/paused-for.js";
import type { StoredRunState } from "../../domain/run-state-machine.js";
import type { PrismaClient } from "../database.js";
import type { DirectSql } from "../direct-sql.js";
import { fromJsonColumn } from "../json-column.js";
import type { RunCommits } from "../runs/commit.js";
import { callOffPause, requestPause, resume } from "../runs/pause-resume.js";

/** What asking a run to pause came to. */
export type PauseOutcome =
  /** The run is in play: it pauses before its next step. */
  | { outcome: "pausing" }
  /** The run is paused already. */
  | { outcome: "paused" }
  | { outcome: "conflict"; state: StoredRunState }
  | { outcome: "not_found" };

/** What resuming a run came to. */
export type ResumeOutcome =
  /** The run was paused and goes on (its worker hears of it within a fraction of a second). */
  | { outcome: "resumed" }
  /** The run was in play with a pause pending: the pause is called off. */
  | { outcome: "pause_called_off" }
  /** The answer does not fit the ask's schema; nothing was written. */
  | { outcome: "invalid"; issues: ValidationIssue[] }
  /** The pause's time ran out (`expires_at`): the run is ending in `timeout`. */
  | { outcome: "expired"; at: string }
  | { outcome: "conflict"; state: StoredRunState }
  | { outcome: "not_found" };

/** A resume's body: the answer, when the client gave one. */
export type ResumeAnswer = { given: false } | { given: true; value: unknown };

/**
 * The API's side of pausing: a client asks a running run to pause (its worker pauses it at the
 * next step boundary and writes play → pause), and resumes a paused one (pause → play, the
 * answer kept for the worker). The writes are db/runs/pause-resume.ts's; here the reads that
 * decide the answer, and the check of the answer against the ask.
 */
export class RunPauseRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly direct: DirectSql,
    private readonly clock: Clock,
    /** Tells the workers of a parked run resumed, once committed. */
    private readonly commits: RunCommits,
  ) {}

  async requestPause(owner: string, id: string): Promise<PauseOutcome> {
    if (await requestPause(this.direct, owner, id)) return { outcome: "pausing" };
    const row = await this.prisma.run.findFirst({ where: { id, owner }, select: { state: true } });
    if (row === null) return { outcome: "not_found" };
    if (row.state === "pause") return { outcome: "paused" };
    return { outcome: "conflict", state: row.state as StoredRunState };
  }

  async resume(owner: string, id: string, answer: ResumeAnswer): Promise<ResumeOutcome> {
    const row = await this.prisma.run.findFirst({
      where: { id, owner },
      select: { state: true, pausedFor: true },
    });
    if (row === null) return { outcome: "not_found" };
    if (row.state === "play" && !answer.given && (await callOffPause(this.direct, owner, id))) {
      return { outcome: "pause_called_off" };
    }
    if (row.state !== "pause" || row.pausedFor === null) return this.conflict(owner, id);
    const pausedFor = fromJsonColumn<PausedFor>(row.pausedFor);
    // Its worker ends it in `timeout` at this moment; an answer now would be accepted and lost.
    if (Date.parse(pausedFor.expires_at) <= this.clock.now().getTime()) {
      return { outcome: "expired", at: pausedFor.expires_at };
    }
    const issues = answerIssues(pausedFor, answer);
    if (issues.length > 0) return { outcome: "invalid", issues };
    const stored: ResumeInput = pausedFor.reason === "ask" ? { answer: answerOf(answer) } : {};
    // Against the pause it checked the answer against, not one that replaced it since.
    const resumed = await resume(
      this.commits,
      { id, owner },
      row.pausedFor,
      stored,
      this.clock.now(),
    );
    return resumed ? { outcome: "resumed" } : this.conflict(owner, id);
  }

  private async conflict(owner: string, id: string): Promise<ResumeOutcome> {
    const row = await this.prisma.run.findFirst({ where: { id, owner }, select: { state: true } });
    if (row === null) return { outcome: "not_found" };
    return { outcome: "conflict", state: row.state as StoredRunState };
  }
}

/** How deep an answer may nest (the answer itself is level 1). */
const MAX_ANSWER_DEPTH = 32;
/** At most this many problems of an answer are listed. */
const MAX_LISTED = 100;

/** An ask without a schema takes any answer, or none (then null). */
function answerOf(answer: ResumeAnswer): unknown {
  return answer.given ? answer.value : null;
}

function answerIssues(pausedFor: PausedFor, answer: ResumeAnswer): ValidationIssue[] {
  const at: (string | number)[] = ["body", "input"];
  if (pausedFor.reason === "requested") {
    if (!answer.given) return [];
    const msg = `Value error, the run paused because a client asked, not at an ask step: resume it without input`;
    return [{ loc: at, msg, type: "value_error" }];
  }
  const anyAnswer = Object.keys(pausedFor.schema).length === 0;
  if (!answer.given) {
    return anyAnswer ? [] : [{ loc: at, msg: "Field required", type: "missing" }];
  }
  // Checked before anything serializes it, so no nesting can exhaust the stack.
  if (depthExceeds(answer.value, MAX_ANSWER_DEPTH)) {
    const msg = `Value error, the answer must not be nested more than ${MAX_ANSWER_DEPTH} levels deep`;
    return [{ loc: at, msg, type: "value_error" }];
  }
  // The first ones: an answer of many wrong items would otherwise make a huge response.
  const issues = checkAnswer(pausedFor.schema, answer.value).slice(0, MAX_LISTED);
  return issues.map((issue) =>
    issue.missing
      ? { loc: [...at, ...issue.path], msg: "Field required", type: "missing" }
      : { loc: [...at, ...issue.path], msg: `Value error, ${issue.message}`, type: "value_error" },
  );
}
