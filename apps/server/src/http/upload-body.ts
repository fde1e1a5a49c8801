import { createHash, randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Request, RequestHandler } from "express";
import multer from "multer";
import { FileTooLarge, RequestInvalid } from "../domain/errors.js";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "../private-files.js";

/** The one file of an upload's body, complete on disk under a temporary name. */
export interface ReceivedFile {
  /** Where it is; removed once the response is sent unless it was moved away. */
  path: string;
  bytes: number;
  /** Hex SHA-256 of the bytes. */
  sha256: string;
  /** The part's `filename`, as the client sent it. */
  originalName: string;
  /** The part's `Content-Type`. */
  mediaType: string;
}

/** The operations whose multipart body streams to disk here. */
const UPLOADS = new Set(["uploadFile", "agentPutRunFile", "agentPutRunVideo"]);

/** Temporary names of files being received; retention removes any a crash left behind. */
export const INCOMING_PREFIX = ".incoming-";

const received = new WeakMap<Request, ReceivedFile>();

/** The file `receiveUpload` took from this request's body, if any. */
export function receivedFile(req: Request): ReceivedFile | undefined {
  return received.get(req);
}

/** A failure of the store while receiving (disk full, …): the server's fault, not the body's. */
class StoreFailed extends Error {
  override readonly name = "StoreFailed";
}

/**
 * Reads the multipart body of `POST /v1/file` (operation `uploadFile`) as it arrives, after the
 * API key was checked and before the body is validated: the part `file` streams into `dir`
 * under a temporary name, hashed and counted on the way, at most `maxBytes` (past it a 413
 * after the rest of the body was read, so the client sees the answer). Other parts are ignored;
 * a second file or a file in another field is a 422. The body the validator then sees is
 * `{file: ""}` when a file came, `{}` otherwise (a 422 "Field required").
 */
export function receiveUpload(options: { dir: string; maxBytes: number }): RequestHandler {
  const parse = multer({
    storage: hashingDiskStorage(options.dir),
    limits: {
      fileSize: options.maxBytes,
      files: 1,
      fields: 16,
      fieldSize: 64 * 1024,
      parts: 17,
      headerPairs: 100,
    },
    // Browsers send file names as UTF-8 without saying so; busboy would read them as Latin-1.
    defParamCharset: "utf8",
    // The name is sanitised as a run file's (its last part kept); busboy's own trimming would
    // turn a name such as "." or "a/" into none at all, and the file into no file.
    preservePath: true,
  }).single("file");

  return (req, res, next) => {
    if (!UPLOADS.has(operationIdOf(req) ?? "")) {
      next();
      return;
    }
    parse(req, res, (error: unknown) => {
      const file = req.file as (Express.Multer.File & { sha256?: string }) | undefined;
      if (file?.path !== undefined) {
        const path = file.path;
        // Best effort: a store that cannot be reached (it failed the upload) cannot be tidied either.
        res.once("close", () => void rm(path, { force: true }).catch(() => undefined));
      }
      if (error !== undefined) {
        next(refusal(error, options.maxBytes));
        return;
      }
      if (file !== undefined && file.sha256 !== undefined) {
        received.set(req, {
          path: file.path,
          bytes: file.size,
          sha256: file.sha256,
          originalName: file.originalname,
          mediaType: file.mimetype,
        });
      }
      // Text fields are not part of the operation; only whether a file came is validated.
      req.body = file === undefined ? {} : { file: "" };
      next();
    });
  };
}

/** The contract's error for a body multer refused. */
function refusal(error: unknown, maxBytes: number): Error {
  if (error instanceof StoreFailed) return error;
  if (error instanceof multer.MulterError) {
    if (error.code === "LIMIT_FILE_SIZE") return new FileTooLarge(maxBytes);
    if (error.code === "LIMIT_UNEXPECTED_FILE" || error.code === "LIMIT_FILE_COUNT") {
      return new RequestInvalid([
        {
          loc: ["body", error.field ?? "file"],
          msg: "Value error, one file is accepted, in the field `file`",
          type: "value_error",
        },
      ]);
    }
  }
  // A malformed body (no boundary, a cut-short part, too many parts): the request's fault.
  const reason = error instanceof Error ? error.message : String(error);
  return new RequestInvalid([
    {
      loc: ["body"],
      msg: `Value error, the multipart body could not be read: ${reason}`,
      type: "value_error",
    },
  ]);
}

function operationIdOf(req: Request): string | undefined {
  return (req as { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId;
}

/**
 * A multer storage that streams each file into `dir` (0600, in a 0700 folder) under a temporary
 * name, computing its SHA-256 and size as the bytes pass.
 */
function hashingDiskStorage(dir: string): multer.StorageEngine {
  return {
    _handleFile(_req, file, callback) {
      const path = join(dir, `${INCOMING_PREFIX}${randomUUID()}`);
      const hash = createHash("sha256");
      let size = 0;
      const measure = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          size += chunk.length;
          done(null, chunk);
        },
      });
      mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE })
        .then(() =>
          pipeline(
            file.stream,
            measure,
            createWriteStream(path, { flags: "wx", mode: PRIVATE_FILE_MODE }),
          ),
        )
        .then(
          () =>
            callback(null, {
              path,
              size,
              sha256: hash.digest("hex"),
            } as Partial<Express.Multer.File>),
          (error: unknown) => {
            void rm(path, { force: true }).catch(() => undefined);
            callback(new StoreFailed(`could not store the upload: ${(error as Error).message}`));
          },
        );
    },
    _removeFile(_req, file, callback) {
      rm(file.path, { force: true }).then(
        () => callback(null),
        (error: unknown) => callback(error as Error),
      );
    },
  };
}
