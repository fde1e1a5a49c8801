import { createRequire } from "node:module";

/**
 * express-openapi-validator finds a request's operation by compiling the `path-to-regexp` matcher
 * of every documented route anew on every request, until one matches: a cost every API request
 * pays (docs/decisions/0004-validator-route-matcher-cache.md). Its fix (upstream pull request
 * 1217, "cache route matchers") is not released; until it is, the validator's `pathToRegexp` is
 * replaced by one that keeps what it compiled. A matcher depends only on the route and the
 * options, and the routes are the spec's few dozen, so the cache stays that small.
 *
 * Called once, before the validator is built. When a release brings the fix, delete this file.
 */
export function cacheValidatorRouteMatchers(): void {
  const validatorRequire = createRequire(
    createRequire(import.meta.url).resolve("express-openapi-validator"),
  );
  const module = validatorRequire("path-to-regexp") as {
    pathToRegexp: ((path: unknown, options?: unknown) => unknown) & { cached?: true };
  };
  const compile = module.pathToRegexp;
  if (compile.cached) return;
  const compiled = new Map<string, unknown>();
  const cached = (path: unknown, options?: unknown) => {
    // Routes are strings; anything else is compiled as before.
    if (typeof path !== "string") return compile(path, options);
    const key = `${path}\u0000${optionsKey(options)}`;
    let matcher = compiled.get(key);
    if (matcher === undefined) {
      matcher = compile(path, options);
      compiled.set(key, matcher);
    }
    return matcher;
  };
  module.pathToRegexp = Object.assign(cached, { cached: true as const });
}

/**
 * The validator asks for a matcher of every route on every request, always with the two routing
 * flags only: those are keyed without JSON.stringify, which cost as much as the lookup it saved.
 */
function optionsKey(options: unknown): string {
  if (options === undefined) return "";
  const { sensitive, strict, ...rest } = options as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return JSON.stringify(options);
  return `${sensitive === true ? "s" : ""}${strict === true ? "t" : ""}`;
}
