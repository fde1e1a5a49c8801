import express, { type Router } from "express";
import type { SkillRepository } from "../db/repositories/skills.js";
import { SkillNotFound } from "../domain/errors.js";
import { ownerOf } from "../http/auth.js";
import { operation } from "../http/operation.js";

/** The skill operations of openapi.yaml. */
export function skillsRouter(skills: SkillRepository): Router {
  const router = express.Router();

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
