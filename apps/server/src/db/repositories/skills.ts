import type { Input, Skill } from "../../domain/api-types.js";
import type { Clock } from "../../domain/clock.js";
import type { PrismaClient } from "../database.js";
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
}

export type ImportOutcome = "created" | "updated" | "unchanged";

type SkillRow = {
  owner: string;
  id: string;
  name: string;
  description: string | null;
  inputs: string;
  createdAt: Date;
  lastModifiedAt: Date;
};

const skillColumns = {
  owner: true,
  id: true,
  name: true,
  description: true,
  inputs: true,
  createdAt: true,
  lastModifiedAt: true,
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
  };
}

/** Skills, always read within one owner. */
export class SkillRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock,
  ) {}

  async get(owner: string, id: string): Promise<Skill | null> {
    const row = await this.prisma.skill.findUnique({
      where: { owner_id: { owner, id } },
      select: skillColumns,
    });
    return row ? toSkill(row) : null;
  }

  async list(owner: string): Promise<Skill[]> {
    const rows = await this.prisma.skill.findMany({
      where: { owner },
      orderBy: [{ name: "asc" }, { id: "asc" }],
      select: skillColumns,
    });
    return rows.map(toSkill);
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
          select: { definitionHash: true },
        });
        const columns = {
          name: record.name,
          description: record.description,
          inputs: toJsonColumn(record.inputs),
          definition: toJsonColumn(record.definition),
          definitionHash: record.definitionHash,
        };
        if (!existing) {
          await tx.skill.create({
            data: { owner, id: record.id, ...columns, createdAt: now, lastModifiedAt: now },
          });
          outcomes.push("created");
        } else if (existing.definitionHash !== record.definitionHash) {
          await tx.skill.update({
            where: { owner_id: { owner, id: record.id } },
            data: { ...columns, lastModifiedAt: now },
          });
          outcomes.push("updated");
        } else {
          outcomes.push("unchanged");
        }
      }
      return outcomes;
    });
  }
}
