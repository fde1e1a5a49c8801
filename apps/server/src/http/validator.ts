import type { RequestHandler } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import type { ApiKeyRepository } from "../db/repositories/api-keys.js";
import { bearerAuth, requireScopes } from "./auth.js";
import { cacheValidatorRouteMatchers } from "./library-patches/route-matchers.js";
import { readMultipartAfterSecurity } from "./library-patches/validator-multipart.js";

/**
 * express-openapi-validator over openapi.yaml: checks the bearer key (through `bearerAuth`),
 * then every request's path, query and body, and — when asked — every response. A multipart
 * body is read by `multipart` (see upload-body.ts), between the key check and the validation
 * of the body (library-patches/validator-multipart.ts), after the rate limit and the key's scopes.
 */
export function openApiValidator(options: {
  specPath: string;
  apiKeys: ApiKeyRepository;
  validateResponses: boolean;
  multipart: RequestHandler;
  /** Counts requests once their key is known (http/rate-limit.ts); absent when the limit is off. */
  rateLimit?: RequestHandler;
}): RequestHandler[] {
  cacheValidatorRouteMatchers();
  const middlewares = OpenApiValidator.middleware({
    apiSpec: options.specPath,
    validateApiSpec: true,
    validateRequests: {
      // FastAPI ignores query parameters it does not know; so does Skillrun.
      allowUnknownQueryParameters: true,
      removeAdditional: false,
      // Report every fault at once, as FastAPI does.
      allErrors: true,
    },
    // Response validation wraps res.json only. The video bytes res.sendFile streams (200, 206) and
    // the bodiless 304 of GET /run/{id}/video never pass through it, so they go out untouched,
    // while that operation's JSON errors are validated like every other response.
    validateResponses: options.validateResponses ? { removeAdditional: false } : false,
    validateSecurity: { handlers: { HTTPBearer: bearerAuth(options.apiKeys) } },
    fileUploader: false,
    // Unknown paths under /v1 are a 404 from the validator rather than a silent pass-through.
    ignoreUndocumented: false,
  }) as RequestHandler[];
  // After the key check, in this order: the request is counted, then its key's scopes are checked
  // (a refused request still counts), then an upload is read.
  const checks = [...(options.rateLimit ? [options.rateLimit] : []), requireScopes()];
  return readMultipartAfterSecurity(middlewares, options.multipart, checks);
}
