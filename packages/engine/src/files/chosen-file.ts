import { describeValue } from "../definition/describe.js";
import { type RunFile, RunFileNotFound, type RunFiles } from "./run-files.js";

/**
 * The run file a step's `file` names, and the name it came with: `value` is a run file's name
 * or an object with a `file` key (a download's result, a `file` input). `kind` names the step in
 * the failure when it is neither, or names no file of this run.
 */
export function chosenFile(
  value: unknown,
  files: RunFiles,
  kind: string,
): { file: RunFile; name: string } {
  let wanted: unknown = value;
  let name: unknown;
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    wanted = (value as { file?: unknown }).file;
    name = (value as { name?: unknown }).name;
  }
  if (typeof wanted !== "string" || wanted === "") {
    throw new Error(
      `${kind}'s file must be a run file's name or an object with a "file" key (such as a download's result), not ${describeValue(value)}`,
    );
  }
  const file = files.find(wanted);
  if (file === undefined)
    throw new RunFileNotFound(
      wanted,
      files.list().map((one) => one.name),
    );
  return { file, name: typeof name === "string" && name.trim() !== "" ? name : file.name };
}
