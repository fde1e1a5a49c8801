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

/** Decodes a cursor made by encodeCursor; null when the text is not one. */
export function decodeCursor(text: string): Cursor | null {
  const [at, id] = decodePair(text) ?? [];
  if (typeof at !== "string" || typeof id !== "string") return null;
  const createdAt = new Date(at);
  if (Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== at) return null;
  return { createdAt, id };
}

/** Encodes a position in a run's event log (the last event id of a page) as opaque text. */
export function encodeEventCursor(afterId: number): string {
  return encodePair(["event", afterId]);
}

/** Decodes a cursor made by encodeEventCursor; null when the text is not one. */
export function decodeEventCursor(text: string): number | null {
  const [tag, id] = decodePair(text) ?? [];
  return tag === "event" && Number.isSafeInteger(id) && (id as number) >= 0 ? (id as number) : null;
}
