import { isAcceptedType } from "@skillrun/engine";
import type { UploadedFileRepository } from "../db/repositories/uploaded-files.js";
import type { Input } from "../domain/api-types.js";
import type { ValidationIssue } from "../domain/errors.js";
import { FILE_ID_PATTERN } from "../domain/ids.js";

/** Whether `value` is an absolute http:// or https:// URL, which a run fetches when it starts. */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

/** The keys of the declared `file` inputs that have a value. */
export function fileInputKeys(
  declared: Pick<Input, "json_key" | "data_type">[],
  values: Record<string, unknown>,
): string[] {
  return declared
    .filter((input) => input.data_type === "file" && Object.hasOwn(values, input.json_key))
    .map((input) => input.json_key);
}

/**
 * Checks each `file` input's value (defaults included) at `POST /run/`: the id of an upload of
 * the owner (of a type the input's `accept` lists, when it has one), or an http(s) URL. Every
 * other value is an issue at ["body", "inputs", key].
 */
export async function checkFileInputs(
  declared: Input[],
  values: Record<string, unknown>,
  owner: string,
  uploads: UploadedFileRepository,
): Promise<ValidationIssue[]> {
  const issues: ValidationIssue[] = [];
  const ids = new Map<string, string>();
  for (const key of fileInputKeys(declared, values)) {
    const value = values[key];
    const loc = ["body", "inputs", key];
    if (typeof value !== "string") {
      issues.push({ loc, msg: "Input should be a valid string", type: "string_type" });
    } else if (FILE_ID_PATTERN.test(value)) {
      ids.set(key, value);
    } else if (!isHttpUrl(value)) {
      issues.push({
        loc,
        msg: "Value error, a file input takes the id of an uploaded file (POST /v1/file) or an http(s) URL",
        type: "value_error",
      });
    }
  }
  const known = await uploads.existing(owner, [...new Set(ids.values())]);
  for (const [key, id] of ids) {
    const contentType = known.get(id);
    const accept = declared.find((input) => input.json_key === key)?.accept;
    if (contentType === undefined) {
      issues.push({
        loc: ["body", "inputs", key],
        msg: `Value error, no uploaded file of yours has the id ${id}`,
        type: "value_error",
      });
    } else if (accept !== undefined && !isAcceptedType(accept, contentType)) {
      // An upload's type is known now; a URL's only once the run fetches it.
      issues.push({
        loc: ["body", "inputs", key],
        msg: `Value error, the uploaded file ${id} is ${contentType.split(";")[0]?.trim()}, not a type this input accepts (${accept.join(", ")})`,
        type: "value_error",
      });
    }
  }
  return issues;
}
