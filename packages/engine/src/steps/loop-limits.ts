/**
 * Most iterations one loop may run: `repeat`'s `max` and a `for_each` list's length. The run's
 * step limit (EngineLimits.steps) bounds loops inside loops.
 */
export const MAX_ITERATIONS = 10_000;

/** How deep `call`s may nest: the run's own skill calls at depth 1, its callee at 2, … */
export const MAX_CALL_DEPTH = 8;
