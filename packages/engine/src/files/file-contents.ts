import { parse as parseCsv } from "csv-parse/sync";
import { messageOf } from "../error-message.js";

/** How `read_file` reads a file's bytes into data. */
export type FileFormat = "csv" | "json" | "text" | "lines";

export const FILE_FORMATS: readonly FileFormat[] = ["csv", "json", "text", "lines"];

/** A file whose contents are not what `read_file` was told to read (or past its row limit). */
export class FileContentsRejected extends Error {
  override readonly name = "FileContentsRejected";
}

/**
 * The contents of a file as data: `csv` a list of objects keyed by the header row (every value
 * text, as in the file), `json` the value, `text` the text, `lines` its lines. The bytes must be
 * UTF-8 (a byte order mark is dropped); `csv` and `lines` give at most `maxRows` rows.
 * Throws FileContentsRejected saying what is wrong, and where.
 */
export function readContents(bytes: Uint8Array, format: FileFormat, maxRows: number): unknown {
  const text = utf8Text(bytes);
  switch (format) {
    case "text":
      return text;
    case "lines":
      return linesOf(text, maxRows);
    case "json":
      try {
        return JSON.parse(text);
      } catch (error) {
        throw new FileContentsRejected(`not JSON: ${messageOf(error)}`);
      }
    case "csv":
      return csvRows(text, maxRows);
  }
}

function utf8Text(bytes: Uint8Array): string {
  try {
    // `ignoreBOM: false` drops a leading byte order mark, as spreadsheets write one.
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new FileContentsRejected("not UTF-8 text");
  }
}

function linesOf(text: string, maxRows: number): string[] {
  if (text === "") return [];
  const lines = text.split(/\r?\n/);
  // A final line break ends the last line; it does not start an empty one.
  if (lines.at(-1) === "") lines.pop();
  if (lines.length > maxRows) throw tooManyRows(maxRows, "lines");
  return lines;
}

/**
 * Rows of a CSV file with a header row, through csv-parse (quoted fields with commas, quotes
 * and line breaks; CRLF or LF). Rows are built here rather than by csv-parse's `columns`, so
 * that any header (`__proto__` included) becomes an own key and a repeated or empty header is
 * refused instead of one column silently replacing another.
 */
function csvRows(text: string, maxRows: number): Record<string, string>[] {
  let records: string[][];
  try {
    records = parseCsv(text, {
      bom: true,
      skip_empty_lines: true,
      // One more than allowed: enough to know the file has too many, no more parsed.
      to: maxRows + 2,
    }) as string[][];
  } catch (error) {
    throw new FileContentsRejected(`not valid CSV: ${messageOf(error)}`);
  }
  const [header, ...rows] = records;
  if (header === undefined) return [];
  if (rows.length > maxRows) throw tooManyRows(maxRows, "rows");
  const seen = new Set<string>();
  header.forEach((name, index) => {
    if (name.trim() === "")
      throw new FileContentsRejected(`the header row's column ${index + 1} has no name`);
    if (seen.has(name))
      throw new FileContentsRejected(`the header row names the column "${name}" twice`);
    seen.add(name);
  });
  // csv-parse has checked that every record has as many fields as the header.
  return rows.map((row) =>
    Object.fromEntries(header.map((name, index) => [name, row[index] ?? ""])),
  );
}

function tooManyRows(maxRows: number, what: string): FileContentsRejected {
  return new FileContentsRejected(
    `more than ${maxRows} ${what}, the most read_file reads (max_rows); read a smaller file`,
  );
}
