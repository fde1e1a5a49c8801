/** A position in the run list: the last run of a page, in the list's order. */
export interface Cursor {
  createdAt: Date;
  id: string;
}

/** Encodes a cursor as opaque URL-safe text. */
export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt.toISOString(), cursor.id])).toString(
    "base64url",
  );
}

/** Decodes a cursor made by encodeCursor; null when the text is not one. */
export function decodeCursor(text: string): Cursor | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== 2) return null;
    const [at, id] = value;
    if (typeof at !== "string" || typeof id !== "string") return null;
    const createdAt = new Date(at);
    if (Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== at) return null;
    return { createdAt, id };
  } catch {
    return null;
  }
}

/** Encodes a position in a run's event log (the last event id of a page) as opaque text. */
export function encodeEventCursor(afterId: number): string {
  return Buffer.from(JSON.stringify(["event", afterId])).toString("base64url");
}

/** Decodes a cursor made by encodeEventCursor; null when the text is not one. */
export function decodeEventCursor(text: string): number | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== 2 || value[0] !== "event") return null;
    const id: unknown = value[1];
    return Number.isSafeInteger(id) && (id as number) >= 0 ? (id as number) : null;
  } catch {
    return null;
  }
}
