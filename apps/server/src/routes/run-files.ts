import { isRunFileName } from "@skillrun/engine";
import express, { type Router } from "express";
import type { RunFileRepository } from "../db/repositories/run-files.js";
import { isStorableText } from "../db/storable-text.js";
import {
  FileLinkExpired,
  FileLinkInvalid,
  RunFileNotFound,
  RunNotFound,
} from "../domain/errors.js";
import type { FileStore } from "../files/file-store.js";
import { servableContentType } from "../files/media-type.js";
import type { VideoUrlSigner } from "../files/signed-url.js";
import { ownerOf } from "../http/auth.js";
import { attachment } from "../http/content-disposition.js";
import { operation } from "../http/operation.js";
import type { Origin } from "../http/public-url.js";
import { sendStoredFile } from "../http/send-stored-file.js";

/**
 * `GET /run/{id}/files` lists a run's files for its owner, each with a signed address;
 * `GET /run/{id}/files/{name}` serves one to whoever holds such an address (the spec's
 * `security: []`: the signature is the authorisation).
 */
export function runFilesRouter(deps: {
  runFiles: RunFileRepository;
  fileStore: FileStore;
  signer: VideoUrlSigner;
  /** The base of the absolute links written for a request (see http/public-url.ts). */
  linkBase: (req: Origin) => string;
}): Router {
  const { runFiles, fileStore, signer } = deps;
  const router = express.Router();

  router.get(
    "/run/:id/files",
    operation("listRunFiles", async (req, res) => {
      const runId = req.params.id;
      // An id the database could not hold names no run (and must not reach a query).
      if (!isStorableText(runId)) throw new RunNotFound();
      const files = await runFiles.list(ownerOf(req), runId);
      if (files === null) throw new RunNotFound();
      const base = deps.linkBase(req);
      res.json(files.map((file) => ({ ...file, url: signer.fileUrlFor(base, runId, file.name) })));
    }),
  );

  router.get(
    "/run/:id/files/:name",
    operation("getRunFile", async (req, res) => {
      const { id: runId, name } = req.params;
      // A name no run file can have (`..`, a separator, a NUL, too long) names nothing, whoever
      // signed it; it never reaches the disk or the database.
      if (!isRunFileName(name) || !isStorableText(runId)) throw new RunFileNotFound();
      const verdict = signer.verifyFile(runId, name, req.query.expires, req.query.signature);
      if (verdict === "invalid") throw new FileLinkInvalid();
      if (verdict === "expired") throw new FileLinkExpired();
      const file = await runFiles.find(runId, name);
      const path = fileStore.runFilePathOf(runId, name);
      if (file === null || path === null) throw new RunFileNotFound();
      const headers = {
        "Content-Type": servableContentType(file.content_type),
        "Content-Disposition": attachment(file.name),
        // Whatever the file holds (a page a run downloaded), browsers neither sniff it into
        // something else nor run it as part of this site.
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "default-src 'none'; sandbox",
      };
      await sendStoredFile(res, path, headers, () => new RunFileNotFound());
    }),
  );

  return router;
}
