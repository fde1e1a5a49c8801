import { parse as parseContentDisposition } from "content-disposition";
import type { RunFile } from "./run-files.js";

/**
 * A run file as steps give it and take it: what a download, a saved body or a `file` input
 * is. `upload` takes one of these (or its `file`) to say which run file to send.
 */
export interface FileResult {
  /** The run file's name: what `upload` and the files endpoint know it by. */
  file: string;
  /** The name it came with: the server's suggested file name for a download. */
  name: string;
  bytes: number;
  content_type: string;
  sha256: string;
}

/** The step result for a stored run file that came with the name `name`. */
export function fileResult(stored: RunFile, name: string): FileResult {
  return {
    file: stored.name,
    name,
    bytes: stored.bytes,
    content_type: stored.content_type,
    sha256: stored.sha256,
  };
}

/** Longest suggested name kept; the run file's own name is cut shorter still. */
const MAX_SUGGESTED = 255;

/**
 * The file name a response suggests: its Content-Disposition `filename` (the RFC 8187
 * `filename*` first), else the last part of the address's path, else `download`.
 */
export function suggestedName(contentDisposition: string | null, url: string): string {
  if (contentDisposition !== null) {
    try {
      const { filename } = parseContentDisposition(contentDisposition).parameters;
      const last = filename?.split(/[/\\]/).pop()?.trim();
      if (last !== undefined && last !== "") return last.slice(0, MAX_SUGGESTED);
    } catch {
      // A malformed header suggests nothing; the address still may.
    }
  }
  const segment = new URL(url).pathname.split("/").pop() ?? "";
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // Kept as sent when it is not valid percent-encoding.
  }
  return decoded.trim() === "" ? "download" : decoded.trim().slice(0, MAX_SUGGESTED);
}

/** `type/subtype` and `token=value` parameters, nothing else (no line breaks, no quotes games). */
const MEDIA_TYPE = /^[\w.+-]+\/[\w.+-]+(\s*;\s*[\w.+-]+=("[^"\r\n]*"|[\w.+-]+))*$/;

/**
 * The content type a response declares, when it is a well-formed media type (lower-cased type,
 * parameters as sent); undefined otherwise, and for `application/octet-stream` (which says
 * nothing), so the file's name decides (`report.pdf` is `application/pdf`).
 */
export function declaredContentType(header: string | null): string | undefined {
  const value = header?.trim() ?? "";
  if (!MEDIA_TYPE.test(value)) return undefined;
  const [type = "", ...parameters] = value.split(";");
  if (type.trim().toLowerCase() === "application/octet-stream") return undefined;
  return [type.trim().toLowerCase(), ...parameters.map((part) => part.trim())].join("; ");
}
