import express, { type Router } from "express";
import type { ResumeAnswer, RunPauseRepository } from "../db/repositories/run-pauses.js";
import { isStorableText } from "../db/storable-text.js";
import { RequestInvalid, RunNotFound, RunStateConflict } from "../domain/errors.js";
import { describedState } from "../domain/run-state-machine.js";
import { ownerOf } from "../http/auth.js";
import { operation } from "../http/operation.js";

/** `POST /run/{id}/pause` and `/resume` of openapi.yaml; each answers the run's state after it. */
export function runPausesRouter(pauses: RunPauseRepository): Router {
  const router = express.Router();
  router.param("id", (_req, _res, next, id: string) => {
    next(isStorableText(id) ? undefined : new RunNotFound());
  });

  router.post(
    "/run/:id/pause",
    operation("pauseRun", async (req, res) => {
      const paused = await pauses.requestPause(ownerOf(req), req.params.id);
      switch (paused.outcome) {
        case "pausing":
          // Accepted: the run pauses before its next step.
          res.status(202).json("play");
          return;
        case "paused":
          res.json("pause");
          return;
        case "conflict":
          throw new RunStateConflict(`Run cannot be paused: ${describedState(paused.state)}`);
        case "not_found":
          throw new RunNotFound();
      }
    }),
  );

  router.post(
    "/run/:id/resume",
    operation("resumeRun", async (req, res) => {
      // The body is optional (a run paused by POST /run/{id}/pause is resumed without one): an
      // answer is given only by a body that has `input`, whatever its value (null included).
      const body: unknown = req.body;
      const answer: ResumeAnswer =
        typeof body === "object" && body !== null && "input" in body
          ? { given: true, value: body.input }
          : { given: false };
      const resumed = await pauses.resume(ownerOf(req), req.params.id, answer);
      switch (resumed.outcome) {
        case "resumed":
        case "pause_called_off":
          res.json("play");
          return;
        case "invalid":
          throw new RequestInvalid(resumed.issues);
        case "expired":
          throw new RunStateConflict(
            `Run is no longer waiting for an answer: its time ran out at ${resumed.at}`,
          );
        case "conflict":
          throw new RunStateConflict(`Run is not paused: ${describedState(resumed.state)}`);
        case "not_found":
          throw new RunNotFound();
      }
    }),
  );

  return router;
}
