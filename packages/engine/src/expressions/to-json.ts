/**
 * Copies a JSONata result into plain JSON: sequences (arrays flagged `sequence`) become plain
 * arrays, null-prototype objects plain objects, and undefined members are dropped as JSON drops
 * them. A function or a number JSON cannot hold is an error.
 */
export function toJson(value: unknown): unknown {
  switch (typeof value) {
    case "undefined":
    case "string":
    case "boolean":
      return value;
    case "number":
      if (!Number.isFinite(value)) throw new Error(`gives ${value}, which is not a JSON number`);
      return value;
    case "function":
      throw new Error("gives a function, not a value");
    case "object": {
      if (value === null) return null;
      if (Array.isArray(value)) return value.map((item) => toJson(item) ?? null);
      // JSONata's lambdas and built-in functions are objects marked so (and may be circular).
      if ("_jsonata_lambda" in value || "_jsonata_function" in value) {
        throw new Error("gives a function, not a value");
      }
      const copy: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        const json = toJson(item);
        if (json !== undefined) copy[key] = json;
      }
      return copy;
    }
    default:
      throw new Error(`gives a ${typeof value}, not a JSON value`);
  }
}
