import express, { type Router } from "express";
import type { ProfileRepository } from "../db/repositories/profiles.js";
import { ProfileNotFound } from "../domain/errors.js";
import { ownerOf } from "../http/auth.js";
import { operation } from "../http/operation.js";
import { keptStorageState } from "../profiles/storage-state.js";

/**
 * The browser profile operations of openapi.yaml. Requests reach them validated (name pattern,
 * the storage state's shape and bounds); an answer describes a profile and never carries a value
 * of it, and the access log never holds a body.
 */
export function profilesRouter(profiles: ProfileRepository): Router {
  const router = express.Router();

  // Declared before /profile/:name so that `list` is never taken for a name.
  router.get(
    "/profile/list",
    operation("listProfiles", async (req, res) => {
      res.json(await profiles.list(ownerOf(req)));
    }),
  );

  router.get(
    "/profile/:name",
    operation("getProfile", async (req, res) => {
      const profile = await profiles.describe(ownerOf(req), req.params.name);
      if (profile === null) throw new ProfileNotFound();
      res.json(profile);
    }),
  );

  router.put(
    "/profile/:name",
    operation("putProfile", async (req, res) => {
      const state = keptStorageState(req.body);
      res.json(await profiles.put(ownerOf(req), req.params.name, state));
    }),
  );

  router.delete(
    "/profile/:name",
    operation("deleteProfile", async (req, res) => {
      if (!(await profiles.delete(ownerOf(req), req.params.name))) throw new ProfileNotFound();
      res.status(204).end();
    }),
  );

  return router;
}
