import type { RequestHandler } from "express";

/**
 * Puts Skillrun's own multipart reader (see http/upload-body.ts) into express-openapi-validator's
 * stages, right after the key check and before the request is validated: the validator's own
 * parser would keep any uploaded file whole in memory with no limit, and the body must be read
 * after the key is known (no unauthenticated upload is ever stored) and before the body is
 * checked against the spec.
 *
 * `checks` (the rate limit, the key's scopes) go between the key check and the reader: a refused
 * request stores nothing either.
 *
 * The validator offers no hook there; it returns its stages as named functions (metadata,
 * security, request, response), and the reader is spliced in by name. `validator-patches.test.ts`
 * fails when those names or their order change.
 */
export function readMultipartAfterSecurity(
  stages: RequestHandler[],
  multipart: RequestHandler,
  checks: RequestHandler[] = [],
): RequestHandler[] {
  const security = stages.findIndex((stage) => stage.name === "securityMiddleware");
  const request = stages.findIndex((stage) => stage.name === "requestMiddleware");
  if (security < 0 || request < security) {
    throw new Error(
      "express-openapi-validator's stages changed (no securityMiddleware before requestMiddleware): " +
        "see http/library-patches/validator-multipart.ts",
    );
  }
  const patched = [...stages];
  patched.splice(security + 1, 0, ...checks, multipart);
  return patched;
}
