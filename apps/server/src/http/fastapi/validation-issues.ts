import type { Request } from "express";
import {
  type AppError,
  NotAuthenticated,
  PayloadTooLarge,
  RequestInvalid,
  RouteNotFound,
  type ValidationIssue,
} from "../../domain/errors.js";

/** The error shape express-openapi-validator throws. */
export interface ValidatorError {
  status: number;
  errors: { path: string; message: string; errorCode?: string }[];
}

export function isValidatorError(error: unknown): error is ValidatorError {
  return (
    typeof error === "object" &&
    error !== null &&
    typeof (error as ValidatorError).status === "number" &&
    Array.isArray((error as ValidatorError).errors)
  );
}

/** Turns body-parser's failures (bad JSON, too large) into the contract's errors. */
export function fromBodyParserError(error: unknown): AppError | null {
  const type = (error as { type?: unknown } | null)?.type;
  if (type === "entity.too.large") return new PayloadTooLarge();
  if (type === "entity.parse.failed") {
    // FastAPI puts the character offset of the fault after "body"; V8 reports it for most faults.
    const position = /position (\d+)/.exec(String((error as Error).message));
    return new RequestInvalid([
      {
        loc: ["body", position ? Number(position[1]) : 0],
        msg: "JSON decode error",
        type: "json_invalid",
      },
    ]);
  }
  // Any other failure to read the body (an unsupported charset or encoding, a gzip body that is
  // not gzip): the body is at fault, not the server.
  const status = (error as { status?: unknown } | null)?.status;
  const exposed = (error as { expose?: unknown } | null)?.expose === true;
  if (exposed && (status === 400 || status === 415) && !isValidatorError(error)) {
    return new RequestInvalid([
      {
        loc: ["body"],
        msg: `Value error, the request body could not be read: ${(error as Error).message}`,
        type: "value_error",
      },
    ]);
  }
  return null;
}

/**
 * Turns a validator error into the contract's: 401, 404, 413, or 422 with one issue per fault.
 * Null for the validator's own 500s (a response that breaks the contract, a failing key
 * lookup): those are the server's fault and answered as unexpected errors.
 */
export function fromValidatorError(error: ValidatorError, req: Request): AppError | null {
  if (error.status >= 500) return null;
  // A path whose percent-encoding does not decode names no route.
  if (error.errors.some((e) => e.message.startsWith("malformed uri"))) return new RouteNotFound();
  switch (error.status) {
    case 401:
    case 403:
      return new NotAuthenticated();
    case 404:
    case 405:
      return new RouteNotFound();
    case 413:
      return new PayloadTooLarge();
    case 415:
      return new RequestInvalid([bodyOfWrongMediaType(req)]);
    default:
      return new RequestInvalid(error.errors.map(toIssue));
  }
}

// FastAPI reads a body only when it is JSON: no body at all is a missing body, anything else
// is not the object the operation expects.
function bodyOfWrongMediaType(req: Request): ValidationIssue {
  const hasBody =
    Number(req.headers["content-length"] ?? 0) > 0 || "transfer-encoding" in req.headers;
  return hasBody
    ? {
        loc: ["body"],
        msg: "Input should be a valid dictionary or object to extract fields from",
        type: "model_attributes_type",
      }
    : { loc: ["body"], msg: "Field required", type: "missing" };
}

// The validator names request parts as Express does; FastAPI as the HTTP spec does.
const PART_NAMES: Record<string, string> = { params: "path", headers: "header" };

function toIssue(e: ValidatorError["errors"][number]): ValidationIssue {
  const [part = "body", ...field] = e.path.split("/").filter(Boolean);
  const loc = [PART_NAMES[part] ?? part, ...field.map((f) => (/^\d+$/.test(f) ? Number(f) : f))];
  const rule = (e.errorCode ?? "").replace(/\.openapi\.validation$/, "");
  // A JSON body that is not an object at all: FastAPI's wording for the whole body.
  if (part === "body" && field.length === 0 && rule === "type") {
    return {
      loc,
      msg: "Input should be a valid dictionary or object to extract fields from",
      type: "model_attributes_type",
    };
  }
  return { loc, ...pydanticError(rule, e.message, part) };
}

/** Pydantic v2's type and message for an ajv rule, so clients see FastAPI's errors. */
function pydanticError(rule: string, message: string, part: string): Omit<ValidationIssue, "loc"> {
  const limit = /(\d+)/.exec(message)?.[1];
  switch (rule) {
    case "required":
      return { type: "missing", msg: "Field required" };
    case "type":
      return typeError(message, part);
    case "enum": {
      const allowed = (/allowed values: (.*)$/.exec(message)?.[1] ?? "")
        .split(", ")
        .map((v) => `'${v}'`);
      const list =
        allowed.length > 1 ? `${allowed.slice(0, -1).join(", ")} or ${allowed.at(-1)}` : allowed[0];
      return { type: "enum", msg: `Input should be ${list}` };
    }
    case "minimum":
      return {
        type: "greater_than_equal",
        msg: `Input should be greater than or equal to ${limit}`,
      };
    case "maximum":
      return { type: "less_than_equal", msg: `Input should be less than or equal to ${limit}` };
    case "minLength":
      return { type: "string_too_short", msg: `String should have at least ${limit} characters` };
    case "maxLength":
      return { type: "string_too_long", msg: `String should have at most ${limit} characters` };
    case "pattern": {
      const pattern = /must match pattern "(.*)"$/.exec(message)?.[1] ?? "";
      return { type: "string_pattern_mismatch", msg: `String should match pattern '${pattern}'` };
    }
    default:
      return { type: "value_error", msg: `Value error, ${message}` };
  }
}

// Query and path values arrive as text, so a wrong type there is text that failed to parse.
function typeError(message: string, part: string): Omit<ValidationIssue, "loc"> {
  const fromText = part !== "body";
  if (message.includes("integer")) {
    return fromText
      ? {
          type: "int_parsing",
          msg: "Input should be a valid integer, unable to parse string as an integer",
        }
      : { type: "int_type", msg: "Input should be a valid integer" };
  }
  if (message.includes("number")) {
    return fromText
      ? {
          type: "float_parsing",
          msg: "Input should be a valid number, unable to parse string as a number",
        }
      : { type: "float_type", msg: "Input should be a valid number" };
  }
  if (message.includes("boolean")) {
    return fromText
      ? { type: "bool_parsing", msg: "Input should be a valid boolean, unable to interpret input" }
      : { type: "bool_type", msg: "Input should be a valid boolean" };
  }
  if (message.includes("object"))
    return { type: "dict_type", msg: "Input should be a valid dictionary" };
  if (message.includes("array")) return { type: "list_type", msg: "Input should be a valid list" };
  return { type: "string_type", msg: "Input should be a valid string" };
}
