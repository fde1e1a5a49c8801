import { readFileSync } from "node:fs";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { parse } from "yaml";
import { paths } from "../../src/paths.js";

/** The text of openapi.yaml, the contract. */
export const specText = readFileSync(paths.openapi, "utf8");

type Json = Record<string, unknown>;

/** openapi.yaml, parsed. */
export const spec = parse(specText) as Json;

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** One operation of the spec and the statuses it declares. */
export interface Operation {
  operationId: string;
  method: string;
  path: string;
  /**
   * The address the path is under: the spec's server (`/v1`), or the path's own (`/metrics` is
   * served at the root, beside `/v1`); never ends with `/`.
   */
  base: string;
  statuses: string[];
  /** JSON pointer of the operation object within the spec. */
  pointer: string;
}

/** A media type of a declared response: its schema and the examples the spec gives. */
export interface MediaType {
  schema?: unknown;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}

/** A response header the spec declares, after following a `$ref` to components/headers. */
export interface DeclaredHeader {
  required?: boolean;
  description?: string;
}

/** A response object the spec declares, after following a `$ref` to components/responses. */
export interface DeclaredResponse {
  pointer: string;
  headers: Record<string, DeclaredHeader>;
  content: Record<string, MediaType>;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function escapeSegment(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}

function pointerOf(...segments: string[]): string {
  return segments.map((s) => `/${escapeSegment(s)}`).join("");
}

/** The value at a local JSON pointer (`/a/b` or `#/a/b`) of the spec. */
export function resolve(pointer: string): unknown {
  const parts = pointer.replace(/^#/, "").split("/").slice(1);
  let node: unknown = spec;
  for (const raw of parts) {
    const part = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (!isObject(node) || !(part in node))
      throw new Error(`openapi.yaml has nothing at ${pointer}`);
    node = node[part];
  }
  return node;
}

/** Every operation of the spec: `paths` × HTTP methods. */
export function operations(): Operation[] {
  const found: Operation[] = [];
  for (const [path, item] of Object.entries(spec.paths as Json)) {
    if (!isObject(item)) continue;
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      if (typeof op.operationId !== "string") {
        throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      }
      found.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        base: baseOf(item),
        statuses: Object.keys(op.responses as Json),
        pointer: pointerOf("paths", path, method),
      });
    }
  }
  return found;
}

/** The server URL a path item is served under: its own `servers`, else the spec's. */
function baseOf(item: Json): string {
  const servers = (Array.isArray(item.servers) ? item.servers : spec.servers) as { url: string }[];
  return (servers[0]?.url ?? "").replace(/\/$/, "");
}

/** The response the spec declares for an operation and status, `$ref`s followed. */
export function declaredResponse(op: Operation, status: string): DeclaredResponse {
  let pointer = `${op.pointer}${pointerOf("responses", status)}`;
  let response = resolve(pointer);
  while (isObject(response) && typeof response.$ref === "string") {
    pointer = response.$ref.replace(/^#/, "");
    response = resolve(pointer);
  }
  if (!isObject(response)) throw new Error(`${op.operationId} ${status}: not a response object`);
  const headers: Record<string, DeclaredHeader> = {};
  for (const [name, header] of Object.entries(isObject(response.headers) ? response.headers : {})) {
    const followed =
      isObject(header) && typeof header.$ref === "string" ? resolve(header.$ref) : header;
    headers[name] = isObject(followed) ? (followed as DeclaredHeader) : {};
  }
  return {
    pointer,
    headers,
    content: isObject(response.content) ? (response.content as DeclaredResponse["content"]) : {},
  };
}

// The spec is added whole under an $id, so the `#/components/schemas/…` refs inside it resolve and
// a response schema is compiled from where it sits in the spec: nothing is copied.
const SPEC_ID = "https://skillrun.test/openapi.yaml";
// ajv-formats is CommonJS: its plugin is the module itself, also exported as `default`.
const addFormats = addFormatsModule.default ?? addFormatsModule;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ ...spec, $id: SPEC_ID });

const validators = new Map<string, ValidateFunction>();

/**
 * A validator for the JSON body the spec declares for an operation and status; throws when the
 * spec declares no JSON body there.
 */
export function bodyValidator(op: Operation, status: string): ValidateFunction {
  const response = declaredResponse(op, status);
  if (!response.content["application/json"]?.schema) {
    throw new Error(`${op.operationId} ${status} declares no application/json schema`);
  }
  const pointer = `${response.pointer}${pointerOf("content", "application/json", "schema")}`;
  let validate = validators.get(pointer);
  if (!validate) {
    const fragment = pointer
      .split("/")
      .map((s) => encodeURIComponent(s))
      .join("/");
    validate = ajv.compile({ $ref: `${SPEC_ID}#${fragment}` });
    validators.set(pointer, validate);
  }
  return validate;
}
