import { builtCli } from "../../src/test-support/built-cli.js";
import { type BenchProcess, startNode } from "./processes.js";

/** `skillrun serve` on a free port; `announced` is its base address (without /v1). */
export function startServe(env: Record<string, string>): Promise<BenchProcess> {
  return startNode([builtCli(), "serve"], /Skillrun is listening on (http:\/\/\S+)/, {
    PORT: "0",
    // The benchmarks measure what the server itself can do, with one key sending thousands of
    // requests a minute: no rate limit unless a benchmark sets one.
    RATE_LIMIT_PER_MINUTE: "0",
    ...env,
  });
}

/** `skillrun worker`; `announced` is its id. */
export function startWorker(env: Record<string, string>): Promise<BenchProcess> {
  return startNode([builtCli(), "worker"], /Skillrun worker (\S+) is executing runs/, env);
}

/** A JSON request to the API with the bench key. */
export async function api<T>(
  base: string,
  key: string,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<T> {
  const response = await fetch(`${base}/v1${path}`, {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  });
  if (!response.ok)
    throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}
