import type { NetworkPolicy } from "@skillrun/engine";
import express, { type Router } from "express";
import { MAX_WEBHOOKS_PER_OWNER, type WebhookRepository } from "../db/repositories/webhooks.js";
import { isStorableText } from "../db/storable-text.js";
import {
  DeliveryNotFound,
  RequestInvalid,
  WebhookDisabled,
  WebhookNotFound,
} from "../domain/errors.js";
import { ownerOf } from "../http/auth.js";
import { operation } from "../http/operation.js";
import { WEBHOOK_EVENTS } from "../webhooks/webhook-events.js";
import { webhookUrlProblem } from "../webhooks/webhook-url.js";

/**
 * The webhook operations of openapi.yaml: endpoints per owner and their deliveries. The secret
 * is in the answer to the registration only; the access log never holds a body.
 */
export function webhooksRouter(deps: {
  webhooks: WebhookRepository;
  /** Where deliveries may be sent: the rules of runs' `http` steps. */
  network: () => NetworkPolicy;
}): Router {
  const { webhooks } = deps;
  const router = express.Router();
  // An id the database could not hold names no endpoint (and must not reach a query).
  router.param("id", (_req, _res, next, id: string) => {
    next(isStorableText(id) ? undefined : new WebhookNotFound());
  });

  router.post(
    "/webhook",
    operation("createWebhook", async (req, res) => {
      const { url, events = [...WEBHOOK_EVENTS] } = req.body;
      const problem = await webhookUrlProblem(url, deps.network());
      if (problem !== undefined) {
        throw new RequestInvalid([
          { loc: ["body", "url"], msg: `Value error, ${problem}`, type: "value_error" },
        ]);
      }
      const created = await webhooks.create(ownerOf(req), url, events);
      if (created === null) {
        throw new RequestInvalid([
          {
            loc: ["body", "url"],
            msg: `Value error, an owner has at most ${MAX_WEBHOOKS_PER_OWNER} webhook endpoints; delete one first`,
            type: "value_error",
          },
        ]);
      }
      res.status(201).json(created);
    }),
  );

  router.get(
    "/webhook/list",
    operation("listWebhooks", async (req, res) => {
      res.json(await webhooks.list(ownerOf(req)));
    }),
  );

  router.delete(
    "/webhook/:id",
    operation("deleteWebhook", async (req, res) => {
      if (!(await webhooks.delete(ownerOf(req), req.params.id))) throw new WebhookNotFound();
      res.status(204).end();
    }),
  );

  router.get(
    "/webhook/:id/deliveries",
    operation("listWebhookDeliveries", async (req, res) => {
      const limit = req.query.limit ?? 20;
      const deliveries = await webhooks.deliveries(ownerOf(req), req.params.id, limit);
      if (deliveries === null) throw new WebhookNotFound();
      res.json(deliveries);
    }),
  );

  router.post(
    "/webhook/:id/deliveries/:delivery/redeliver",
    operation("redeliverWebhook", async (req, res) => {
      const { id, delivery } = req.params;
      if (!isStorableText(delivery)) throw new DeliveryNotFound();
      const done = await webhooks.redeliver(ownerOf(req), id, delivery);
      switch (done.outcome) {
        case "pending":
          res.status(202).json(done.delivery);
          return;
        case "no_webhook":
          throw new WebhookNotFound();
        case "no_delivery":
          throw new DeliveryNotFound();
        case "disabled":
          throw new WebhookDisabled();
      }
    }),
  );

  return router;
}
