-- A skill's definition as its author sent it (YAML with its comments, or JSON), served back as
-- sent (docs/decisions/0061-skills-keep-their-text.md); null for skills stored before it.
-- AlterTable
ALTER TABLE "skills" ADD COLUMN "source" TEXT;
