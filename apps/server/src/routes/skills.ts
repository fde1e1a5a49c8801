import express, { type Router } from "express";
import { stringify } from "yaml";
import type { SkillRepository } from "../db/repositories/skills.js";
import { isStorableText } from "../db/storable-text.js";
import { SkillInUse, SkillNotFound } from "../domain/errors.js";
import { ownerOf } from "../http/auth.js";
import { bodyText } from "../http/body-text.js";
import { operation } from "../http/operation.js";
import { skillRecordOf } from "../skills/import-skills.js";
import { checkedSkillBody, storeSkill } from "../skills/skill-body.js";
import type { SkillChecker } from "../skills/skill-checker.js";

/** The skill operations of openapi.yaml. */
export function skillsRouter(skills: SkillRepository, checker: SkillChecker): Router {
  const router = express.Router();
  // An id the database could not hold names no skill (and must not reach a query).
  router.param("id", (_req, _res, next, id: string) => {
    next(isStorableText(id) ? undefined : new SkillNotFound());
  });

  // Declared before /skill/:id so that `list` is never taken for an id.
  router.get(
    "/skill/list",
    operation("listSkills", async (req, res) => {
      res.json(await skills.list(ownerOf(req)));
    }),
  );

  router.post(
    "/skill/validate",
    operation("validateSkill", async (req, res) => {
      const owner = ownerOf(req);
      const definition = await checkedSkillBody(
        checker,
        skills,
        owner,
        req.body,
        undefined,
        bodyText(req),
      );
      const { definitionHash } = skillRecordOf(definition);
      res.json({ id: definition.id, name: definition.name, x_version: definitionHash });
    }),
  );

  router.put(
    "/skill/:id",
    operation("putSkill", async (req, res) => {
      const owner = ownerOf(req);
      const definition = await checkedSkillBody(
        checker,
        skills,
        owner,
        req.body,
        req.params.id,
        bodyText(req),
      );
      // A YAML body is kept as sent, comments included (docs/decisions/0061).
      const source = typeof req.body === "string" ? req.body : null;
      const outcome = await storeSkill(skills, owner, definition, source);
      const skill = await skills.get(owner, req.params.id);
      if (!skill) throw new SkillNotFound();
      res.status(outcome === "created" ? 201 : 200).json(skill);
    }),
  );

  router.delete(
    "/skill/:id",
    operation("deleteSkill", async (req, res) => {
      const deleted = await skills.delete(ownerOf(req), req.params.id);
      if (deleted.outcome === "not_found") throw new SkillNotFound();
      if (deleted.outcome === "called") {
        throw new SkillInUse(
          `Skill is called by ${deleted.by.join(", ")}: change or delete those first`,
        );
      }
      res.status(204).end();
    }),
  );

  // The definition's text as sent (docs/decisions/0061), else the stored one written out.
  router.get(
    "/skill/:id/yaml",
    operation("getSkillYaml", async (req, res) => {
      const text = await skills.text(ownerOf(req), req.params.id);
      if (!text) throw new SkillNotFound();
      res
        .type("application/yaml; charset=utf-8")
        .send(text.source ?? stringify(text.definition, { lineWidth: 0 }));
    }),
  );

  router.get(
    "/skill/:id",
    operation("getSkill", async (req, res) => {
      const skill = await skills.getWithDefinition(ownerOf(req), req.params.id);
      if (!skill) throw new SkillNotFound();
      res.json(skill);
    }),
  );

  return router;
}
