import type { RequestHandler } from "express";
import type { OpenApiRequestMetadata } from "express-openapi-validator/dist/framework/types.js";
import { RequestInvalid, type ValidationIssue } from "../../domain/errors.js";

// What Pydantic v2 reads as an integer from text: optional whitespace and sign, decimal digits,
// and a fraction of zeros only ("100.0"). Not "1e2", "0x10", "Infinity" or "1.5", which the
// validator's type coercion (JavaScript's Number) would otherwise turn into integers.
const PYDANTIC_INT = /^\s*[+-]?\d+(?:\.0*)?\s*$/;

/**
 * Refuses integer query parameters whose text Pydantic would not parse as an integer, with
 * FastAPI's `int_parsing`. Runs after the validator, which has already refused text that is no
 * number at all, and converted the rest.
 */
export function pydanticQueryIntegers(): RequestHandler {
  return (req, _res, next) => {
    const parameters = (req as { openapi?: OpenApiRequestMetadata }).openapi?.schema.parameters;
    const issues: ValidationIssue[] = [];
    let raw: URLSearchParams | undefined;
    for (const parameter of parameters ?? []) {
      if (!("in" in parameter) || parameter.in !== "query") continue;
      const schema = parameter.schema;
      if (!schema || !("type" in schema) || schema.type !== "integer") continue;
      raw ??= new URL(req.originalUrl, "http://server.invalid").searchParams;
      for (const text of raw.getAll(parameter.name)) {
        if (PYDANTIC_INT.test(text)) continue;
        issues.push({
          loc: ["query", parameter.name],
          msg: "Input should be a valid integer, unable to parse string as an integer",
          type: "int_parsing",
        });
      }
    }
    next(issues.length > 0 ? new RequestInvalid(issues) : undefined);
  };
}
