import { randomUUID } from "node:crypto";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import {
  type InputDeclaration,
  isAcceptedType,
  type NetworkPolicy,
  type RunFile,
  type RunFiles,
} from "@skillrun/engine";
import type { UploadedFileRepository } from "../db/repositories/uploaded-files.js";
import { FILE_ID_PATTERN } from "../domain/ids.js";
import { PRIVATE_DIR_MODE } from "../private-files.js";
import { FetchFailed, fetchUrlToFile } from "./fetch-url-file.js";
import { fileInputKeys, isHttpUrl } from "./file-inputs.js";
import type { FileStore } from "./file-store.js";
import { contentTypeFor } from "./media-type.js";

/** How long fetching one URL given for a file input may take. */
export const URL_INPUT_TIMEOUT_MS = 60_000;

/** What a step sees of a `file` input: the run file, and the name the file came with. */
export interface FileInputValue {
  /** The run file's name (what `upload` and other steps take). */
  file: string;
  /** The upload's name, or the name the URL's response or path gave. */
  name: string;
  bytes: number;
  content_type: string;
  sha256: string;
}

export interface FileInputDeps {
  /** Where an upload's record is found (an agent finds those its job lists). */
  uploads: Pick<UploadedFileRepository, "get">;
  /** Where an upload's bytes are, and the run's files folder (a URL is fetched beside it). */
  fileStore: Pick<FileStore, "uploadPathOf" | "filesDirOf">;
  /** Where the run may connect: a URL input is fetched as the run's own requests are. */
  network: NetworkPolicy;
  /** Largest file a URL may give (FILE_MAX_BYTES). */
  maxBytes: number;
  /** How long fetching one URL may take; URL_INPUT_TIMEOUT_MS by default. */
  fetchTimeoutMs?: number;
}

/** A file input that could not become a run file; the message names the input and why. */
export class FileInputFailed extends Error {
  override readonly name = "FileInputFailed";
}

/** Why one input's value cannot be had, in words for the run's error. */
class Unusable extends Error {
  override readonly name = "Unusable";
}

/**
 * Makes each `file` input of a run a run file before its steps start: an upload of the run's
 * owner is copied into the run's files, a URL is fetched into them (network policy, size limit,
 * timeout). Returns the inputs as the engine sees them, each file input replaced by a
 * FileInputValue; the run's stored inputs keep what the client sent. Throws FileInputFailed
 * naming the input when one cannot be had (the run then fails at its start), the run's own
 * abort when it was stopped meanwhile, and any other failure (the store's, the database's) as
 * it is.
 */
export async function prepareFileInputs(
  deps: FileInputDeps,
  run: { id: string; owner: string; inputs: Record<string, unknown> },
  declared: Pick<InputDeclaration, "json_key" | "data_type" | "accept">[],
  files: RunFiles,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const inputs = { ...run.inputs };
  for (const key of fileInputKeys(declared, run.inputs)) {
    const value = run.inputs[key];
    const accept = declared.find((input) => input.json_key === key)?.accept;
    try {
      inputs[key] = await prepareOne(deps, run, value, accept, files, signal);
    } catch (error) {
      if (signal.aborted || !(error instanceof Unusable || error instanceof FetchFailed)) {
        throw error;
      }
      throw new FileInputFailed(`file input "${key}": ${error.message}`);
    }
  }
  return inputs;
}

async function prepareOne(
  deps: FileInputDeps,
  run: { id: string; owner: string },
  value: unknown,
  accept: readonly string[] | undefined,
  files: RunFiles,
  signal: AbortSignal,
): Promise<FileInputValue> {
  if (typeof value === "string" && FILE_ID_PATTERN.test(value)) {
    const upload = await deps.uploads.get(run.owner, value);
    if (upload === null) throw new Unusable(`the uploaded file ${value} no longer exists`);
    checkAccepted(accept, upload.content_type, `the uploaded file ${value}`);
    const file = await files.copy(
      deps.fileStore.uploadPathOf(upload.id),
      upload.name,
      upload.content_type,
    );
    return inputValueOf(file, upload.name);
  }
  if (typeof value === "string" && isHttpUrl(value)) {
    // Fetched beside the run's files under a name no run file can have, then stored as one.
    const dir = deps.fileStore.filesDirOf(run.id);
    await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const incoming = join(dir, `.incoming-${randomUUID()}`);
    try {
      const fetched = await fetchUrlToFile(value, incoming, {
        network: deps.network,
        maxBytes: deps.maxBytes,
        timeoutMs: deps.fetchTimeoutMs ?? URL_INPUT_TIMEOUT_MS,
        signal,
      });
      const name = fetched.suggestedName ?? "download";
      const contentType = contentTypeFor(fetched.contentType, name);
      // Checked before the file is kept: a login page answered instead of the export is refused.
      checkAccepted(accept, contentType, `GET ${value}`);
      const file = await files.copy(incoming, name, contentType);
      return inputValueOf(file, name);
    } finally {
      await rm(incoming, { force: true });
    }
  }
  throw new Unusable(
    `${JSON.stringify(value)} is neither an uploaded file's id nor an http(s) URL`,
  );
}

/** Fails unless a file of `contentType` is one the input's `accept` lists (any, without one). */
function checkAccepted(
  accept: readonly string[] | undefined,
  contentType: string,
  what: string,
): void {
  if (accept === undefined || isAcceptedType(accept, contentType)) return;
  throw new Unusable(
    `${what} is ${contentType.split(";")[0]?.trim()}, not a type the input accepts (${accept.join(", ")})`,
  );
}

function inputValueOf(file: RunFile, name: string): FileInputValue {
  return {
    file: file.name,
    name,
    bytes: file.bytes,
    content_type: file.content_type,
    sha256: file.sha256,
  };
}
