import { resolveValue } from "../expressions/evaluate.js";
import type { Execution } from "./execution.js";
import { DataLimitExceeded } from "./limits.js";

/**
 * What a skill gives when its steps are done: its `output` map with templates resolved, or its
 * data when it declares none. Throws when a value cannot be evaluated or the result outgrows the
 * data limit.
 */
export async function skillOutput(run: Execution): Promise<Record<string, unknown>> {
  const { output } = run.definition;
  if (output === undefined) return run.data;
  const resolved = (await resolveValue(output, run.scope(), run.hooks)) as Record<string, unknown>;
  const bytes = Buffer.byteLength(JSON.stringify(resolved));
  if (bytes > run.limits.dataBytes) throw new DataLimitExceeded(bytes, run.limits.dataBytes);
  return resolved;
}

/**
 * What a skill that did not finish gives: each `output` value that can still be evaluated
 * (those that cannot, or would outgrow the data limit, are left out), or its data.
 */
export async function partialOutput(run: Execution): Promise<Record<string, unknown>> {
  const { output } = run.definition;
  if (output === undefined) return run.data;
  const partial: Record<string, unknown> = {};
  let bytes = 2;
  for (const [key, value] of Object.entries(output)) {
    try {
      const resolved = await resolveValue(value, run.scope(), run.hooks);
      const size = Buffer.byteLength(JSON.stringify({ [key]: resolved }));
      if (bytes + size > run.limits.dataBytes) continue;
      bytes += size;
      partial[key] = resolved;
    } catch {
      // Left out: what failed may be exactly what this value needed.
    }
  }
  return partial;
}
