import type { Request } from "express";
import type { ApiKeyRepository } from "../db/repositories/api-keys.js";
import { NotAuthenticated } from "../domain/errors.js";

const owners = new WeakMap<object, string>();

/**
 * The HTTPBearer security handler the OpenAPI validator calls for every operation: resolves the
 * bearer key to its owner, or rejects with 401. It runs before request validation, so an
 * unauthenticated caller learns nothing about the request's shape (as in FastAPI).
 */
export function bearerAuth(apiKeys: ApiKeyRepository) {
  return async (req: Request): Promise<boolean> => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
    const owner = match?.[1] ? await lookUp(apiKeys, match[1], req) : null;
    if (owner === null) throw new NotAuthenticated();
    owners.set(req, owner);
    return true;
  };
}

// The validator answers 401 for anything a security handler throws unless it carries another
// status: a failing key store must be a 500, not a rejected key.
async function lookUp(
  apiKeys: ApiKeyRepository,
  key: string,
  req: Request,
): Promise<string | null> {
  try {
    return await apiKeys.ownerOf(key);
  } catch (error) {
    req.log.error({ err: error }, "API key lookup failed");
    throw Object.assign(new Error("API key lookup failed"), { status: 500 });
  }
}

/** The owner of the API key that authenticated this request (any request type of a route). */
export function ownerOf(req: object): string {
  const owner = owners.get(req);
  // Unreachable for routes behind the validator; a loud failure beats an unscoped query.
  if (owner === undefined) throw new Error("ownerOf called on an unauthenticated request");
  return owner;
}
