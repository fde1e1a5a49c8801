/**
 * JSON with object keys sorted at every depth, so equal definitions give equal text (and hash)
 * however their keys were ordered. Array order is kept: it is meaningful.
 */
export function canonicalJson(value: unknown): string {
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item !== "object" || item === null || Array.isArray(item)) return item;
    const entries = Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries);
  });
  // JSON.stringify gives undefined for undefined (and functions); JSON has only null for them.
  return text ?? "null";
}
