import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { paths } from "./contract.js";

/** The openapi-fetch client typed from the Skillrun contract. */
export type SkillrunClient = Client<paths>;

export interface SkillrunClientOptions {
  /** The API's base address including `/v1`, e.g. `http://127.0.0.1:8080/v1`. */
  baseUrl: string;
  /** A Skillrun API key; sent as `Authorization: Bearer <apiKey>` on every request. */
  apiKey: string;
  /** The fetch to use instead of `globalThis.fetch` (for tests, proxies, instrumentation). */
  fetch?: ClientOptions["fetch"];
}

/** Creates an openapi-fetch client for the Skillrun API that authenticates every request. */
export function createSkillrunClient(options: SkillrunClientOptions): SkillrunClient {
  return createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { Authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch && { fetch: options.fetch }),
  });
}
