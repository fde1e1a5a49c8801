import express, { type Router } from "express";
import type { ApiKeyInfo, ApiKeyRepository } from "../db/repositories/api-keys.js";
import { isStorableText } from "../db/storable-text.js";
import { KeyNotFound, RequestInvalid, ScopesNotHeld } from "../domain/errors.js";
import { normaliseScopes, notGranted } from "../domain/scopes.js";
import { keyOf, ownerOf } from "../http/auth.js";
import { operation } from "../http/operation.js";

/** Active keys an owner may have through the API (the CLI, an operator's tool, is not held to it). */
export const MAX_ACTIVE_KEYS_PER_OWNER = 100;

/**
 * The key operations of openapi.yaml (docs/decisions/0046-scoped-keys.md). A key is shown once,
 * when created; lists show its prefix. A key gives a new key only scopes it has itself.
 */
export function keysRouter(apiKeys: ApiKeyRepository): Router {
  const router = express.Router();
  // PostgreSQL cannot compare text holding a NUL (nor half a surrogate pair): no key has such an id.
  router.param("id", (_req, _res, next, id: string) => {
    next(isStorableText(id) ? undefined : new KeyNotFound());
  });

  router.post(
    "/key",
    operation("createKey", async (req, res) => {
      const caller = keyOf(req);
      const lacking = notGranted(caller?.scopes ?? [], req.body.scopes);
      if (lacking.length > 0) throw new ScopesNotHeld(normaliseScopes(lacking));
      const owner = ownerOf(req);
      // Counted before the insert: requests sent at once may pass the cap by their number, which
      // the rate limit bounds; it is there to keep lists and the table small, not exact.
      if ((await apiKeys.countActive(owner)) >= MAX_ACTIVE_KEYS_PER_OWNER) {
        throw new RequestInvalid([
          {
            loc: ["body"],
            msg: `Value error, an owner has at most ${MAX_ACTIVE_KEYS_PER_OWNER} active keys; revoke one first`,
            type: "value_error",
          },
        ]);
      }
      const { key, info } = await apiKeys.create(owner, {
        name: req.body.name ?? null,
        scopes: req.body.scopes,
      });
      res.status(201).json({ ...shown(info), key });
    }),
  );

  router.get(
    "/key/list",
    operation("listKeys", async (req, res) => {
      res.json((await apiKeys.listActive(ownerOf(req))).map(shown));
    }),
  );

  router.delete(
    "/key/:id",
    operation("deleteKey", async (req, res) => {
      if (!(await apiKeys.revoke(req.params.id, ownerOf(req)))) throw new KeyNotFound();
      res.status(204).end();
    }),
  );

  return router;
}

function shown(info: ApiKeyInfo) {
  return {
    id: info.id,
    name: info.name,
    scopes: info.scopes,
    prefix: info.prefix,
    created_at: info.createdAt.toISOString(),
  };
}
