import express, { type Router } from "express";
import type { SkillRepository } from "../db/repositories/skills.js";
import { SkillNotFound } from "../domain/errors.js";
import { ownerOf } from "../http/auth.js";
import { operation } from "../http/operation.js";
import { isStorableText } from "../http/storable-text.js";

/** The skill operations of openapi.yaml. */
export function skillsRouter(skills: SkillRepository): Router {
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

  router.get(
    "/skill/:id",
    operation("getSkill", async (req, res) => {
      const skill = await skills.get(ownerOf(req), req.params.id);
      if (!skill) throw new SkillNotFound();
      res.json(skill);
    }),
  );

  return router;
}
