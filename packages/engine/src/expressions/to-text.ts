/**
 * How a value reads inside text: strings as they are, nothing as "", anything else as JSON, with
 * numbers to 15 significant digits as JSONata's `$string` gives them (0.1 + 0.2 reads 0.3).
 */
export function toText(value: unknown): string {
  if (value === undefined) return "";
  if (typeof value === "string") return value;
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === "number" ? Number(item.toPrecision(15)) : item,
  );
}
