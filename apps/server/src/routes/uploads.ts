import { rename, rm } from "node:fs/promises";
import { sanitiseFileName } from "@skillrun/engine";
import express, { type Router } from "express";
import type { UploadedFileRepository } from "../db/repositories/uploaded-files.js";
import {
  RequestInvalid,
  StorageQuotaExceeded,
  UploadedFileInUse,
  UploadedFileNotFound,
} from "../domain/errors.js";
import { FILE_ID_PATTERN, newFileId } from "../domain/ids.js";
import type { FileStore } from "../files/file-store.js";
import { contentTypeFor } from "../files/media-type.js";
import { ownerOf } from "../http/auth.js";
import { operation } from "../http/operation.js";
import { receivedFile } from "../http/upload-body.js";

/**
 * `POST /file` keeps an uploaded file for the caller's runs' `file` inputs; `DELETE /file/{id}`
 * removes one before retention would.
 */
export function uploadsRouter(deps: {
  uploads: UploadedFileRepository;
  fileStore: FileStore;
}): Router {
  const router = express.Router();

  router.post(
    "/file",
    operation("uploadFile", async (req, res) => {
      // Read by receiveUpload before validation, which made sure a file came.
      const file = receivedFile(req);
      if (file === undefined) {
        throw new RequestInvalid([
          { loc: ["body", "file"], msg: "Field required", type: "missing" },
        ]);
      }
      const id = newFileId();
      const name = sanitiseFileName(file.originalName);
      const path = deps.fileStore.uploadPathOf(id);
      // In place first, then recorded: a row always has its bytes.
      await rename(file.path, path);
      try {
        const kept = await deps.uploads.create(ownerOf(req), {
          id,
          name,
          bytes: file.bytes,
          content_type: contentTypeFor(file.mediaType, name),
          sha256: file.sha256,
        });
        // Over the owner's quota nothing was recorded; its bytes go below.
        if (kept === null) throw new StorageQuotaExceeded(deps.uploads.quotaBytes ?? 0);
        res.json(kept);
      } catch (error) {
        await rm(path, { force: true });
        throw error;
      }
    }),
  );

  router.delete(
    "/file/:id",
    operation("deleteFile", async (req, res) => {
      const { id } = req.params;
      // An id no upload can have never reaches the database (or the disk).
      if (!FILE_ID_PATTERN.test(id)) throw new UploadedFileNotFound();
      const deleted = await deps.uploads.delete(ownerOf(req), id);
      if (deleted.outcome === "not_found") throw new UploadedFileNotFound();
      if (deleted.outcome === "in_use") throw new UploadedFileInUse(deleted.by);
      // Recorded first, then removed: a row never names missing bytes.
      await rm(deps.fileStore.uploadPathOf(id), { force: true });
      res.status(204).end();
    }),
  );

  return router;
}
