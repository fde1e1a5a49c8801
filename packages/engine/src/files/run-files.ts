import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { copyFile, mkdir, open, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { lookup } from "mime-types";
import { formatBytes } from "../run/limits.js";
import { sanitiseFileName } from "./file-names.js";

/** A file a run has: a download, a screenshot, an uploaded input, a saved response body. */
export interface RunFile {
  /** Its name in the run's folder: sanitised, unique within the run. */
  name: string;
  bytes: number;
  content_type: string;
  /** Hex SHA-256 of the bytes. */
  sha256: string;
  /** RFC 3339. */
  created_at: string;
}

/**
 * The run's files, kept in one folder of the run's own. Every file a step produces goes through
 * here, so each one is named safely, counted and reported (`onFile`) the same way.
 */
export interface RunFiles {
  /** Stores bytes as a run file named after `name` (sanitised; `-2`, `-3`, … when taken). */
  write(name: string, bytes: Uint8Array, contentType?: string): Promise<RunFile>;
  /**
   * Stores what `chunks` yield (a response body, streamed) as a run file; when they throw (a
   * transfer past its limit, a connection lost) nothing is kept and the error is passed on.
   */
  receive(name: string, chunks: AsyncIterable<Uint8Array>, contentType?: string): Promise<RunFile>;
  /** Stores a copy of a file on disk (a download the browser saved) as a run file. */
  copy(path: string, name: string, contentType?: string): Promise<RunFile>;
  /** The run file named `name`, or undefined: only names this run stored are found. */
  find(name: string): RunFile | undefined;
  /** Where the run file named `name` is on disk; throws for a name this run did not store. */
  pathOf(name: string): string;
  /** Every run file, in the order they were stored. */
  list(): RunFile[];
}

export interface RunFilesOptions {
  /** The run's folder (made on the first file). */
  dir: string;
  /** Clock for `created_at`; Date.now by default. */
  now?: () => number;
  /** Told of every file stored, once it is complete on disk. */
  onFile?: (file: RunFile) => void;
  /** Files the run starts with (inputs stored before it ran), already in `dir`. */
  existing?: RunFile[];
  /**
   * Most bytes all the run's files may hold, the files it starts with included; a file that
   * would go past it is not kept (a transfer stops as it crosses it). No limit when absent.
   */
  maxTotalBytes?: number;
}

/** A file that would take the run's files past their limit (RUN_FILES_MAX_BYTES). */
export class RunFilesLimitExceeded extends Error {
  override readonly name = "RunFilesLimitExceeded";

  constructor(file: string, limit: number) {
    super(
      `${file} would take the run's files over their limit of ${formatBytes(limit)} (${limit} bytes) for all of a run's files; nothing of it was kept`,
    );
  }
}

/** A run file name that does not exist in this run. */
export class RunFileNotFound extends Error {
  override readonly name = "RunFileNotFound";

  /** `known`: the run's files, named in the message so the right one is easy to pick. */
  constructor(file: string, known?: readonly string[]) {
    const listed =
      known === undefined
        ? ""
        : known.length === 0
          ? "; this run has no files yet"
          : `; this run has: ${known.join(", ")}`;
    super(`no run file named "${file}"${listed}`);
  }
}

export function createRunFiles(options: RunFilesOptions): RunFiles {
  const now = options.now ?? Date.now;
  const files = new Map<string, RunFile>();
  for (const file of options.existing ?? []) files.set(file.name, file);
  let made = false;
  const limit = options.maxTotalBytes ?? Number.POSITIVE_INFINITY;
  // Bytes of the files kept and of those being stored: counted as they come, so that transfers
  // at the same time cannot pass the limit together.
  let used = [...files.values()].reduce((sum, file) => sum + file.bytes, 0);
  /** Counts `bytes` more for `name`, or refuses them past the limit. */
  const take = (name: string, bytes: number): void => {
    if (used + bytes > limit) throw new RunFilesLimitExceeded(name, limit);
    used += bytes;
  };
  /** `chunks`, each counted as it passes. */
  async function* counted(
    name: string,
    chunks: AsyncIterable<Uint8Array>,
    taken: { bytes: number },
  ) {
    for await (const chunk of chunks) {
      take(name, chunk.byteLength);
      taken.bytes += chunk.byteLength;
      yield chunk;
    }
  }

  /** A free name for `wanted`, reserved at once so two steps never get the same one. */
  const reserve = (wanted: string): string => {
    const safe = sanitiseFileName(wanted);
    const dot = safe.lastIndexOf(".");
    const [stem, extension] = dot > 0 ? [safe.slice(0, dot), safe.slice(dot)] : [safe, ""];
    let name = safe;
    for (let n = 2; files.has(name); n += 1) name = `${stem}-${n}${extension}`;
    return name;
  };

  const store = async (
    wanted: string,
    contentType: string | undefined,
    put: (path: string, taken: { bytes: number }) => Promise<void>,
  ): Promise<RunFile> => {
    const name = reserve(wanted);
    // What this file has counted against the limit so far; given back if it is not kept.
    const taken = { bytes: 0 };
    const placeholder: RunFile = {
      name,
      bytes: 0,
      content_type: "",
      sha256: "",
      created_at: "",
    };
    files.set(name, placeholder);
    try {
      if (!made) await mkdir(options.dir, { recursive: true, mode: 0o700 });
      made = true;
      const path = join(options.dir, name);
      await put(path, taken);
      const file: RunFile = {
        name,
        bytes: (await stat(path)).size,
        content_type: contentType ?? (lookup(name) || "application/octet-stream"),
        sha256: await sha256Of(path),
        created_at: new Date(now()).toISOString(),
      };
      files.set(name, file);
      options.onFile?.(file);
      return file;
    } catch (error) {
      used -= taken.bytes;
      files.delete(name);
      // What a failed write left behind (half a body) must not stay in the run's folder.
      await rm(join(options.dir, name), { force: true }).catch(() => undefined);
      throw error;
    }
  };

  return {
    write: (name, bytes, contentType) =>
      store(name, contentType, (path, taken) => {
        take(name, bytes.byteLength);
        taken.bytes = bytes.byteLength;
        return writeFile(path, bytes, { mode: 0o600 });
      }),
    receive: (name, chunks, contentType) =>
      store(name, contentType, async (path, taken) => {
        // Opened before the transfer starts: a stream that opens its file by itself may create it
        // after a transfer refused at once was cleaned up, leaving an empty file behind.
        const handle = await open(path, "w", 0o600);
        try {
          await pipeline(Readable.from(counted(name, chunks, taken)), handle.createWriteStream());
        } finally {
          await handle.close().catch(() => undefined);
        }
      }),
    copy: (source, name, contentType) =>
      store(name, contentType, async (path, taken) => {
        const { size } = await stat(source);
        take(name, size);
        taken.bytes = size;
        await copyFile(source, path);
      }),
    find: (name) => {
      const file = files.get(name);
      return file?.sha256 === "" ? undefined : file;
    },
    pathOf(name) {
      if (!files.has(name)) throw new RunFileNotFound(name);
      return join(options.dir, name);
    },
    list: () => [...files.values()].filter((file) => file.sha256 !== ""),
  };
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}
