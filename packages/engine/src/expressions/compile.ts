import jsonata from "jsonata";

/**
 * Limits on one evaluation. Evaluation runs on promises that never yield to timers, so a runaway
 * expression would otherwise keep a run from noticing it was cancelled.
 */
const GUARDRAILS = { timeout: 1000, stack: 500, sequence: 1_000_000 } as const;

/** Enough for every expression of many skills; the oldest is dropped beyond it. */
const CACHE_SIZE = 2000;

const cache = new Map<string, jsonata.Expression>();

/** Compiles a JSONata expression once and reuses it; throws JSONata's error on bad syntax. */
export function compileExpression(expression: string): jsonata.Expression {
  let compiled = cache.get(expression);
  if (compiled === undefined) {
    compiled = jsonata(expression, GUARDRAILS);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    cache.set(expression, compiled);
  }
  return compiled;
}
