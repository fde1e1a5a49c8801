import {
  DEFAULT_SKILL_TIMEOUT_MS,
  PROFILE_SAVE_CHOICES,
  type ProfileSave,
  skillCalls,
} from "@skillrun/engine";
import type { Input, Skill } from "../../domain/api-types.js";
import type { Clock } from "../../domain/clock.js";
import { writtenDefinition } from "../../skills/written-definition.js";
import type { PrismaClient } from "../database.js";
import type { DirectSql } from "../direct-sql.js";
import { fromJsonColumn, toJsonColumn } from "../json-column.js";

/** What an import stores of one skill definition. */
export interface SkillRecord {
  id: string;
  name: string;
  description: string | null;
  inputs: Input[];
  /** The whole normalised definition, kept for the worker. */
  definition: unknown;
  /** Hash of the canonical definition: equal hashes mean an unchanged definition. */
  definitionHash: string;
  /** The text the definition was parsed from, kept to be served back as sent; null: none. */
  source?: string | null;
}

export type ImportOutcome = "created" | "updated" | "unchanged";

/**
 * A skill as `POST /run/` reads it: the skill, its `concurrency` and `concurrency_key`, and its
 * browser profile's name template and `save`.
 */
export interface SkillToRun {
  skill: Skill;
  concurrency: { limit: number; keyTemplate: string | null } | null;
  profile: { nameTemplate: string; save: ProfileSave } | null;
}

/** The columns kept beside a definition for the run queue: its concurrency and key template. */
function concurrencyColumns(definition: unknown): {
  concurrency: number | null;
  concurrencyKey: string | null;
} {
  const { concurrency, concurrency_key: key } = (definition ?? {}) as {
    concurrency?: number;
    concurrency_key?: string;
  };
  return { concurrency: concurrency ?? null, concurrencyKey: key ?? null };
}

/** The columns kept beside a definition for its browser profile: its name template and save. */
function profileColumns(definition: unknown): {
  profileName: string | null;
  profileSave: string | null;
} {
  const { profile } = (definition ?? {}) as { profile?: { name: string; save?: ProfileSave } };
  if (profile === undefined) return { profileName: null, profileSave: null };
  return { profileName: profile.name, profileSave: profile.save ?? "never" };
}

function profileSaveOf(text: string | null): ProfileSave {
  return (PROFILE_SAVE_CHOICES as readonly (string | null)[]).includes(text)
    ? (text as ProfileSave)
    : "never";
}

type SkillRow = {
  owner: string;
  id: string;
  name: string;
  description: string | null;
  inputs: string;
  createdAt: Date;
  lastModifiedAt: Date;
  definitionHash: string;
};

const skillColumns = {
  owner: true,
  id: true,
  name: true,
  description: true,
  inputs: true,
  createdAt: true,
  lastModifiedAt: true,
  definitionHash: true,
} as const;

function toSkill(row: SkillRow): Skill {
  return {
    id: row.id,
    name: row.name,
    owner: row.owner,
    description: row.description,
    created_at: row.createdAt.toISOString(),
    last_modified_at: row.lastModifiedAt.toISOString(),
    inputs: fromJsonColumn<Input[]>(row.inputs),
    x_version: row.definitionHash,
  };
}

/** What deleting a skill came to: `called` names the owner's skills whose `call`s need it. */
export type DeleteOutcome =
  | { outcome: "deleted" }
  | { outcome: "not_found" }
  | { outcome: "called"; by: string[] };

/**
 * Skills, always read within one owner. A deleted skill keeps its row (its runs name it) with
 * `deleted_at` set, and every read here passes it by.
 */
export class SkillRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly direct: DirectSql,
    private readonly clock: Clock,
  ) {}

  /** One skill (without its definition). */
  async get(owner: string, id: string): Promise<Skill | null> {
    return (await this.getToRun(owner, id))?.skill ?? null;
  }

  /**
   * One skill (without its definition) and the concurrency its runs are queued with; on the path
   * of every `POST /run/`, so read directly.
   */
  async getToRun(owner: string, id: string): Promise<SkillToRun | null> {
    const [row] = await this.direct.all<{
      owner: string;
      id: string;
      name: string;
      description: string | null;
      inputs: string;
      created_at: Date;
      last_modified_at: Date;
      definition_hash: string;
      concurrency: number | null;
      concurrency_key: string | null;
      profile_name: string | null;
      profile_save: string | null;
    }>(
      `SELECT owner, id, name, description, inputs, created_at, last_modified_at, definition_hash,
          concurrency, concurrency_key, profile_name, profile_save
        FROM skills WHERE owner = ? AND id = ? AND deleted_at IS NULL`,
      [owner, id],
    );
    if (row === undefined) return null;
    const skill = toSkill({
      ...row,
      createdAt: row.created_at,
      lastModifiedAt: row.last_modified_at,
      definitionHash: row.definition_hash,
    });
    const concurrency =
      row.concurrency === null
        ? null
        : { limit: Number(row.concurrency), keyTemplate: row.concurrency_key };
    const profile =
      row.profile_name === null
        ? null
        : { nameTemplate: row.profile_name, save: profileSaveOf(row.profile_save) };
    return { skill, concurrency, profile };
  }

  /**
   * The time limit of a skill's runs (its stored definition's `timeoutMs`): a client run waits
   * for an agent at most this long. The engine's default when the definition is unreadable.
   */
  async timeoutMsOf(owner: string, id: string): Promise<number> {
    const [row] = await this.direct.all<{ definition: string | null }>(
      "SELECT definition FROM skills WHERE owner = ? AND id = ?",
      [owner, id],
    );
    const stored = fromJsonColumn<{ timeoutMs?: unknown }>(row?.definition ?? null);
    const timeoutMs = stored?.timeoutMs;
    return typeof timeoutMs === "number" ? timeoutMs : DEFAULT_SKILL_TIMEOUT_MS;
  }

  /**
   * One skill with its whole definition (`x_definition`) as `GET /skill/{id}` shows it: as
   * stored, in the form a PUT takes back.
   */
  async getWithDefinition(owner: string, id: string): Promise<Skill | null> {
    const row = await this.prisma.skill.findFirst({
      where: { owner, id, deletedAt: null },
      select: { ...skillColumns, definition: true },
    });
    if (row === null) return null;
    const definition = fromJsonColumn<Record<string, unknown>>(row.definition);
    return { ...toSkill(row), x_definition: writtenDefinition(definition) };
  }

  /**
   * A skill's definition as text: as it was sent (`source`), or null with the stored
   * definition when it was stored without its text; null when the owner has no such skill.
   */
  async text(
    owner: string,
    id: string,
  ): Promise<{ source: string | null; definition: Record<string, unknown> } | null> {
    const row = await this.prisma.skill.findFirst({
      where: { owner, id, deletedAt: null },
      select: { source: true, definition: true },
    });
    if (row === null) return null;
    const definition = fromJsonColumn<Record<string, unknown>>(row.definition);
    return { source: row.source, definition: writtenDefinition(definition) };
  }

  async list(owner: string): Promise<Skill[]> {
    const rows = await this.prisma.skill.findMany({
      where: { owner, deletedAt: null },
      orderBy: [{ name: "asc" }, { id: "asc" }],
      select: skillColumns,
    });
    return rows.map(toSkill);
  }

  /** Every stored definition of `owner`, by skill id (as stored: JSON parsed, not checked). */
  async definitions(owner: string): Promise<Map<string, unknown>> {
    const rows = await this.prisma.skill.findMany({
      where: { owner, deletedAt: null },
      select: { id: true, definition: true },
    });
    return new Map(rows.map((row) => [row.id, fromJsonColumn<unknown>(row.definition)]));
  }

  /**
   * Upserts every record for `owner` in one transaction: all are stored or none is.
   * `last_modified_at` moves only for a skill whose definition changed.
   */
  async importAll(owner: string, records: SkillRecord[]): Promise<ImportOutcome[]> {
    const now = this.clock.now();
    return this.prisma.$transaction(async (tx) => {
      const outcomes: ImportOutcome[] = [];
      for (const record of records) {
        const existing = await tx.skill.findUnique({
          where: { owner_id: { owner, id: record.id } },
          select: { definitionHash: true, deletedAt: true },
        });
        const columns = {
          name: record.name,
          description: record.description,
          inputs: toJsonColumn(record.inputs),
          definition: toJsonColumn(record.definition),
          definitionHash: record.definitionHash,
          source: record.source ?? null,
          ...concurrencyColumns(record.definition),
          ...profileColumns(record.definition),
        };
        if (!existing) {
          await tx.skill.create({
            data: { owner, id: record.id, ...columns, createdAt: now, lastModifiedAt: now },
          });
          outcomes.push("created");
        } else if (existing.deletedAt !== null) {
          // A deleted skill's id is free again: this is a new skill of that id.
          await tx.skill.update({
            where: { owner_id: { owner, id: record.id } },
            data: { ...columns, createdAt: now, lastModifiedAt: now, deletedAt: null },
          });
          outcomes.push("created");
        } else if (existing.definitionHash !== record.definitionHash) {
          await tx.skill.update({
            where: { owner_id: { owner, id: record.id } },
            data: { ...columns, lastModifiedAt: now },
          });
          outcomes.push("updated");
        } else {
          // The same definition in other words (a comment changed): the text as sent is kept,
          // and the skill's version and last_modified_at stay.
          await tx.skill.update({
            where: { owner_id: { owner, id: record.id } },
            data: { source: record.source ?? null },
          });
          outcomes.push("unchanged");
        }
      }
      return outcomes;
    });
  }

  /**
   * Deletes a skill: gone for its owner from now on, its runs kept. Refused while another of the
   * owner's skills calls it (that skill's runs would fail at the call).
   */
  async delete(owner: string, id: string): Promise<DeleteOutcome> {
    const now = this.clock.now();
    return this.prisma.$transaction(async (tx) => {
      const live = await tx.skill.findMany({
        where: { owner, deletedAt: null },
        select: { id: true, definition: true },
      });
      if (!live.some((skill) => skill.id === id)) return { outcome: "not_found" };
      const by = live
        .filter((skill) => skill.id !== id)
        .filter((skill) =>
          skillCalls(fromJsonColumn<unknown>(skill.definition)).some((c) => c.skill === id),
        )
        .map((skill) => skill.id);
      if (by.length > 0) return { outcome: "called", by };
      await tx.skill.updateMany({
        where: { owner, id, deletedAt: null },
        data: { deletedAt: now },
      });
      return { outcome: "deleted" };
    });
  }
}
