import type { components } from "@skillrun/contract";
import { canonicalJson } from "@skillrun/engine";

/** How long an `Idempotency-Key` holds: a repeat within it answers the key's first run. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * What of a `POST /v1/run/` body a repeat must match, as text: every field the request's meaning
 * depends on (unknown fields are ignored by the operation, so they are left out), object keys in
 * a fixed order, and absent or null `inputs` as the `{}` they mean.
 */
export function requestIdentity(body: components["schemas"]["RunSkillRequest"]): string {
  // A client run is another request than a cloud one; a cloud request's identity is as it was
  // before `environment` existed, so keys taken then still match.
  const client = body.environment === "client" ? { environment: "client" } : {};
  return canonicalJson({ skill_id: body.skill_id, inputs: body.inputs ?? {}, ...client });
}
