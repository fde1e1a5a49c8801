import type { RequestHandler } from "express";
import type { OpenApiRequestMetadata } from "express-openapi-validator/dist/framework/types.js";
import { isStorableText } from "../db/storable-text.js";
import { RequestInvalid, type ValidationIssue } from "../domain/errors.js";

// Body fields that are data, stored as escaped JSON text (any string survives the round trip);
// every other body string is a value the database compares or stores as text.
const DATA_FIELDS = new Set(["inputs"]);

const ISSUE = {
  msg: "Value error, text must not contain NUL characters or unpaired surrogates",
  type: "value_error",
};

/**
 * Refuses, with a 422, declared query values and body strings that the database could not store
 * or compare, before any query sees them. Runs after the validator, so only an authenticated
 * request of a known operation gets this far, and every value already has its declared type.
 * Path ids are checked by their routers: an id no row can have is a 404 there.
 */
export function refuseUnstorableText(): RequestHandler {
  return (req, _res, next) => {
    const issues: ValidationIssue[] = [];
    const declared = (req as { openapi?: OpenApiRequestMetadata }).openapi?.schema.parameters ?? [];
    const query = req.query as Record<string, unknown>;
    for (const parameter of declared) {
      if (!("in" in parameter) || parameter.in !== "query") continue;
      const value = query[parameter.name];
      const values = Array.isArray(value) ? value : [value];
      values.forEach((item, index) => {
        if (typeof item === "string" && !isStorableText(item)) {
          const loc = Array.isArray(value) ? [parameter.name, index] : [parameter.name];
          issues.push({ loc: ["query", ...loc], ...ISSUE });
        }
      });
    }
    const body: unknown = req.body;
    if (typeof body === "object" && body !== null && !Array.isArray(body)) {
      for (const [field, value] of Object.entries(body)) {
        if (DATA_FIELDS.has(field) || typeof value !== "string" || isStorableText(value)) continue;
        issues.push({ loc: ["body", field], ...ISSUE });
      }
    }
    next(issues.length > 0 ? new RequestInvalid(issues) : undefined);
  };
}
