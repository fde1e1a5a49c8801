import type { Request, RequestHandler } from "express";
import type { ApiKeyRepository, KeyIdentity } from "../db/repositories/api-keys.js";
import { MissingScope, NotAuthenticated } from "../domain/errors.js";
import { grants } from "../domain/scopes.js";

interface Authenticated {
  key: KeyIdentity;
  /** The scopes the operation's security requirement names (openapi.yaml). */
  needs: readonly string[];
}

const authenticated = new WeakMap<object, Authenticated>();

/**
 * The HTTPBearer security handler the OpenAPI validator calls for every operation: resolves the
 * bearer key to its owner and scopes, or rejects with 401. It runs before request validation, so
 * an unauthenticated caller learns nothing about the request's shape (as in FastAPI).
 *
 * It does not refuse a key that lacks the operation's scope: `requireScopes` does, after the rate
 * limit has counted the request (docs/decisions/0045-rate-limits-per-owner.md), so that a key
 * cannot send unlimited requests by sending ones it may not make.
 */
export function bearerAuth(apiKeys: ApiKeyRepository) {
  return async (req: Request, scopes: string[]): Promise<boolean> => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
    const key = match?.[1] ? await lookUp(apiKeys, match[1], req) : null;
    if (key === null) throw new NotAuthenticated();
    authenticated.set(req, { key, needs: scopes });
    return true;
  };
}

// The validator answers 401 for anything a security handler throws unless it carries another
// status: a failing key store must be a 500, not a rejected key.
async function lookUp(
  apiKeys: ApiKeyRepository,
  key: string,
  req: Request,
): Promise<KeyIdentity | null> {
  try {
    return await apiKeys.identify(key);
  } catch (error) {
    req.log.error({ err: error }, "API key lookup failed");
    throw Object.assign(new Error("API key lookup failed"), { status: 500 });
  }
}

/**
 * Refuses (403, naming the scope) a request whose key lacks a scope its operation needs. Placed
 * right after the key check and the rate limit, before the body is read or validated.
 */
export function requireScopes(): RequestHandler {
  return (req, _res, next) => {
    const auth = authenticated.get(req);
    const missing = auth?.needs.find((scope) => !grants(auth.key.scopes, scope));
    next(missing === undefined ? undefined : new MissingScope(missing));
  };
}

/** The key that authenticated this request, or undefined for an operation that takes none. */
export function keyOf(req: object): KeyIdentity | undefined {
  return authenticated.get(req)?.key;
}

/** The owner of the API key that authenticated this request (any request type of a route). */
export function ownerOf(req: object): string {
  const owner = keyOf(req)?.owner;
  // Unreachable for routes behind the validator; a loud failure beats an unscoped query.
  if (owner === undefined) throw new Error("ownerOf called on an unauthenticated request");
  return owner;
}
