import { readFile } from "node:fs/promises";
import { saveTarget } from "../definition/schema-parts.js";
import { chosenFile } from "../files/chosen-file.js";
import {
  FILE_FORMATS,
  FileContentsRejected,
  type FileFormat,
  readContents,
} from "../files/file-contents.js";
import { filesOf } from "../files/files-of.js";
import { formatBytes } from "../run/limits.js";
import { defineStepKind } from "./step-kind.js";

export type ReadFileAction = {
  file: string | { file: string };
  as: FileFormat;
  save_as?: string;
  max_bytes?: number;
  max_rows?: number;
};

/** Largest file `read_file` reads, and the most a step's `max_bytes` may say. */
export const READ_FILE_MAX_BYTES = 10 * 1024 * 1024;
/** Most rows (CSV records after the header, or lines) `read_file` gives by default. */
export const READ_FILE_MAX_ROWS = 100_000;

/**
 * `read_file`: reads a run file (a download, a saved body, a `file` input) into data, as CSV
 * rows, JSON, text or lines; gives the data and saves it under `save_as`. Bounded: a file
 * larger than `max_bytes` is refused before it is read, and CSV or lines past `max_rows` fail
 * the step (docs/decisions/0060).
 */
export const readFileStep = defineStepKind<ReadFileAction>({
  schema: {
    type: "object",
    required: ["file", "as"],
    properties: {
      file: {
        type: ["string", "object"],
        minLength: 1,
        required: ["file"],
        properties: { file: { type: "string", minLength: 1 } },
        description:
          "Which run file to read: its name, or an object with a `file` key such as a download's result or a `file` input.",
      },
      as: {
        enum: [...FILE_FORMATS],
        description:
          "csv: a list of objects keyed by the header row; json: the value; text: the text; lines: a list of lines.",
      },
      save_as: saveTarget,
      max_bytes: {
        type: "integer",
        minimum: 1,
        maximum: READ_FILE_MAX_BYTES,
        description: `Largest file read, in bytes; past it the step fails. At most, and by default, ${formatBytes(READ_FILE_MAX_BYTES)}.`,
      },
      max_rows: {
        type: "integer",
        minimum: 1,
        maximum: READ_FILE_MAX_ROWS,
        description: `Most CSV rows or lines read; past it the step fails. At most, and by default, ${READ_FILE_MAX_ROWS}.`,
      },
    },
    additionalProperties: false,
  },
  async run(action, context) {
    const files = filesOf(context);
    const { file } = chosenFile(await context.resolve(action.file), files, "read_file");
    const maxBytes = action.max_bytes ?? READ_FILE_MAX_BYTES;
    if (file.bytes > maxBytes) {
      throw new Error(
        `read_file ${file.name}: the file is ${sizeOf(file.bytes)}, over the limit of ${sizeOf(maxBytes)}`,
      );
    }
    const bytes = await readFile(files.pathOf(file.name), { signal: context.signal });
    let value: unknown;
    try {
      value = readContents(bytes, action.as, action.max_rows ?? READ_FILE_MAX_ROWS);
    } catch (error) {
      if (error instanceof FileContentsRejected) {
        throw new Error(`read_file ${file.name} as ${action.as}: ${error.message}`);
      }
      throw error;
    }
    if (action.save_as !== undefined) context.saveAs(action.save_as, value);
    return value;
  },
});

/** `2000 bytes`, or `12 MB (12582912 bytes)`: exact, and readable when large. */
function sizeOf(bytes: number): string {
  const readable = formatBytes(bytes);
  return readable.endsWith(" bytes") ? readable : `${readable} (${bytes} bytes)`;
}
