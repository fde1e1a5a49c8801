import { request as httpRequest } from "node:http";
import type { SkillRecord } from "../../src/db/repositories/skills.js";
import type { Input } from "../../src/domain/api-types.js";

/** What a test needs of one HTTP exchange: status, headers and the body (parsed when JSON). */
export interface Reply {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or the text when the response is not JSON. */
  body: unknown;
  text: string;
  /** The body exactly as received (for binary responses such as videos). */
  bytes: Uint8Array;
}

export interface CallOptions {
  /** The API key sent as `Authorization: Bearer <key>`; none when omitted. */
  key?: string;
  /** Sent as a JSON body with `Content-Type: application/json`. */
  json?: unknown;
  /** Sent as it is (with `Content-Type: application/json` unless `headers` say otherwise). */
  body?: string;
  headers?: Record<string, string>;
}

/** One real HTTP request, as curl would send it. `url` is absolute or relative to `origin`. */
export async function call(
  origin: string,
  method: string,
  url: string,
  options: CallOptions = {},
): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  const body = options.json !== undefined ? JSON.stringify(options.json) : options.body;
  if (body !== undefined) headers["content-type"] = "application/json";
  Object.assign(headers, options.headers);
  const response = await fetch(new URL(url, origin), { method, headers, body });
  return replyOf(response, new Uint8Array(await response.arrayBuffer()));
}

/** The reply of `response` whose body was `bytes` (parsed when it is JSON). */
function replyOf(response: Response, bytes: Uint8Array): Reply {
  const text = new TextDecoder().decode(bytes);
  const isJson = /^application\/json\b/.test(response.headers.get("content-type") ?? "");
  return {
    status: response.status,
    headers: response.headers,
    body: isJson && text !== "" ? JSON.parse(text) : text,
    text,
    bytes,
  };
}

/** A stored skill with the given declared inputs (no steps: runs stay queued in this version). */
export function skillRecord(
  id: string,
  name: string,
  inputs: Input[] = [],
  description: string | null = null,
): SkillRecord {
  return { id, name, description, inputs, definition: { steps: [] }, definitionHash: `hash-${id}` };
}

/** An id one character longer than the contract's `maxLength: 128` for ids. */
export const TOO_LONG_ID = "x".repeat(129);

/** A JSON request body just over the default 1 MiB limit. */
export function oversizedRunBody(skillId: string): string {
  return JSON.stringify({ skill_id: skillId, padding: "x".repeat(1024 * 1024) });
}

/** RFC 3339 UTC with milliseconds, as the contract writes every timestamp. */
export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** `run_` followed by a UUID v7. */
export const RUN_ID = /^run_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A request whose path goes out exactly as written, dot segments included. */
export function rawRequest(
  origin: string,
  method: string,
  path: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${origin}/`, { method, path }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        body += chunk;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on("error", reject);
    request.end();
  });
}

/**
 * A request to a stream that stays open: reads until the body holds `enough` (or the server
 * ends it), then closes it from this side. The reply holds what was read.
 */
export async function callStream(
  origin: string,
  url: string,
  options: { key?: string; headers?: Record<string, string>; enough: string },
): Promise<Reply> {
  const control = new AbortController();
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  const response = await fetch(new URL(url, origin), { headers, signal: control.signal });
  let text = "";
  const decoder = new TextDecoder();
  try {
    for await (const chunk of response.body ?? []) {
      text += decoder.decode(chunk, { stream: true });
      if (text.includes(options.enough)) break;
    }
  } finally {
    control.abort();
  }
  return replyOf(response, new TextEncoder().encode(text));
}
