import { RUN_ID_PATTERN } from "./ids.js";

/** A position in the run list: the last run of a page, in the list's order. */
export interface Cursor {
  createdAt: Date;
  id: string;
}

// Cursors are a JSON pair as base64url: opaque to clients, checked when they come back.
function encodePair(pair: [unknown, unknown]): string {
  return Buffer.from(JSON.stringify(pair)).toString("base64url");
}

function decodePair(text: string): [unknown, unknown] | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    return Array.isArray(value) && value.length === 2 ? [value[0], value[1]] : null;
  } catch {
    return null;
  }
}

/** Encodes a cursor as opaque URL-safe text. */
export function encodeCursor(cursor: Cursor): string {
  return encodePair([cursor.createdAt.toISOString(), cursor.id]);
}

// Cursors only hold what the server could have issued: a run's creation time (stamped by the
// server's clock, so within the years every database flavour stores) and a run id. Anything else
// (year 0, negative years, NULs in the id) is refused before it reaches a query.
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Decodes a cursor made by encodeCursor; null when the text is not one. */
export function decodeCursor(text: string): Cursor | null {
  const [at, id] = decodePair(text) ?? [];
  if (typeof at !== "string" || typeof id !== "string" || !RUN_ID_PATTERN.test(id)) return null;
  const createdAt = new Date(at);
  const time = createdAt.getTime();
  if (!(time >= EARLIEST && time <= LATEST) || createdAt.toISOString() !== at) return null;
  return { createdAt, id };
}

/** Encodes a position in a run's event log (the last event id of a page) as opaque text. */
export function encodeEventCursor(afterId: number): string {
  return encodePair(["event", afterId]);
}

// Event ids are a 32-bit serial on PostgreSQL (and SQLite's rowid never gets near it here).
const LAST_EVENT_ID = 2 ** 31 - 1;

/** Decodes a cursor made by encodeEventCursor; null when the text is not one. */
export function decodeEventCursor(text: string): number | null {
  const [tag, id] = decodePair(text) ?? [];
  return tag === "event" &&
    Number.isSafeInteger(id) &&
    (id as number) >= 0 &&
    (id as number) <= LAST_EVENT_ID
    ? (id as number)
    : null;
}
