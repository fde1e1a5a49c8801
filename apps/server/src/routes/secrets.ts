import express, { type Router } from "express";
import type { SecretRepository } from "../db/repositories/secrets.js";
import { SecretNotFound } from "../domain/errors.js";
import { ownerOf } from "../http/auth.js";
import { operation } from "../http/operation.js";

/**
 * The secret operations of openapi.yaml. Requests reach them validated (name pattern, value
 * length, no NUL); no response carries a value, and the access log never holds a body.
 */
export function secretsRouter(secrets: SecretRepository): Router {
  const router = express.Router();

  router.get(
    "/secret/list",
    operation("listSecrets", async (req, res) => {
      res.json(await secrets.list(ownerOf(req)));
    }),
  );

  router.put(
    "/secret/:name",
    operation("putSecret", async (req, res) => {
      res.json(await secrets.put(ownerOf(req), req.params.name, req.body.value));
    }),
  );

  router.delete(
    "/secret/:name",
    operation("deleteSecret", async (req, res) => {
      if (!(await secrets.delete(ownerOf(req), req.params.name))) throw new SecretNotFound();
      res.status(204).end();
    }),
  );

  return router;
}
