import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { createRunFiles, type NetworkPolicy, type RunFile } from "@skillrun/engine";
import type { UploadedFile } from "../db/repositories/uploaded-files.js";
import { prepareFileInputs } from "../files/prepare-file-inputs.js";
import type { AgentJob, ServerLink } from "./server-link.js";

/** Where a job's file inputs come from and go to on the agent's machine. */
export interface JobInputsDeps {
  server: ServerLink;
  /** Where the agent's runs may connect: a URL input is fetched from the user's network. */
  network: NetworkPolicy;
  /** FILE_MAX_BYTES: the largest file a URL input may give. */
  maxBytes: number;
}

/**
 * Makes each `file` input of the job a run file before its first step, as a worker does
 * (files/prepare-file-inputs.ts): an upload its job lists is fetched from the server, a URL is
 * fetched by the agent itself. Each becomes a run file in `filesDir` (`onFile` sends it on to the
 * server's list of the run's files). Returns the inputs as the engine sees them and the files
 * the run starts with; throws FileInputFailed naming the input that cannot be had, and the
 * signal's reason when the run is stopped meanwhile.
 */
export async function prepareJobInputs(
  deps: JobInputsDeps,
  job: AgentJob,
  dirs: { filesDir: string; uploadsDir: string },
  onFile: (file: RunFile) => void,
  signal: AbortSignal,
): Promise<{ inputs: Record<string, unknown>; files: RunFile[] }> {
  const listed = new Map((job.uploads ?? []).map((upload) => [upload.id, upload]));
  const pathOf = (id: string) => join(dirs.uploadsDir, id);
  const uploads = {
    /** The upload, fetched beside the run's folder; null when the job does not list it. */
    async get(_owner: string, id: string): Promise<UploadedFile | null> {
      const upload = listed.get(id);
      if (upload === undefined) return null;
      await mkdir(dirs.uploadsDir, { recursive: true, mode: 0o700 });
      await deps.server.download(job.run_id, id, pathOf(id), signal);
      return upload;
    },
  };
  const files = createRunFiles({ dir: dirs.filesDir, onFile });
  const definition = job.definition as { inputs?: Parameters<typeof prepareFileInputs>[2] };
  const inputs = await prepareFileInputs(
    {
      uploads,
      fileStore: { uploadPathOf: pathOf, filesDirOf: () => dirs.filesDir },
      network: deps.network,
      maxBytes: deps.maxBytes,
    },
    // The owner is the server's to check: the job lists only the run owner's uploads.
    { id: job.run_id, owner: "", inputs: job.inputs },
    definition.inputs ?? [],
    files,
    signal,
  );
  return { inputs, files: files.list() };
}
