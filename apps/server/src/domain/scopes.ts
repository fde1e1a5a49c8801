/**
 * What an API key may do (docs/decisions/0046-scoped-keys.md). Every operation of openapi.yaml
 * names the one scope it needs in its security requirement; `admin` stands for all of them.
 */
export const SCOPES = [
  "runs:read",
  "runs:write",
  "skills:write",
  "secrets:write",
  "webhooks:write",
  "schedules:write",
  "profiles:write",
  "keys:write",
  "agent",
] as const;

export const ADMIN = "admin";

export type Scope = (typeof SCOPES)[number] | typeof ADMIN;

const KNOWN = new Set<string>([...SCOPES, ADMIN]);

export function isScope(value: string): value is Scope {
  return KNOWN.has(value);
}

/** Whether a key holding `granted` may use an operation that needs `needed`. */
export function grants(granted: readonly string[], needed: string): boolean {
  return granted.includes(ADMIN) || granted.includes(needed);
}

/** The scopes of `wanted` that `granted` does not cover; a key may only mint a key within its own. */
export function notGranted(granted: readonly string[], wanted: readonly string[]): string[] {
  if (granted.includes(ADMIN)) return [];
  return wanted.filter((scope) => scope === ADMIN || !granted.includes(scope));
}

/** Scopes as the api_keys.scopes column holds them: a JSON array, `["admin"]` by default. */
export function parseStoredScopes(text: string): Scope[] {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) throw new Error("api_keys.scopes is not a JSON array");
  return parsed.filter((s): s is Scope => typeof s === "string" && isScope(s));
}

/** The scopes of a list in a fixed order (SCOPES', `admin` first), each once. */
export function normaliseScopes(scopes: readonly string[]): Scope[] {
  const wanted = new Set(scopes);
  return ([ADMIN, ...SCOPES] as Scope[]).filter((s) => wanted.has(s));
}
