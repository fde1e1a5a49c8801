import { ADMIN, isScope, normaliseScopes, SCOPES, type Scope } from "../domain/scopes.js";
import { withRepositories } from "./with-database.js";

/**
 * `skillrun keys create --owner O [--scope S]... [--name N]`: prints the new key (it cannot be
 * shown again) and its scopes. `--scope` may repeat and take comma lists; without it the key is
 * `admin` (every scope).
 */
export async function keysCreate(
  owner: string,
  options: { scope?: string[]; name?: string } = {},
): Promise<number> {
  const asked = (options.scope ?? []).flatMap((s) => s.split(",")).map((s) => s.trim());
  const unknown = asked.filter((s) => !isScope(s));
  if (unknown.length > 0 || (options.scope !== undefined && asked.every((s) => s === ""))) {
    console.error(
      `skillrun: unknown scope ${unknown.map((s) => `"${s}"`).join(", ") || "(empty)"}; ` +
        `a scope is one of: ${[ADMIN, ...SCOPES].join(", ")}`,
    );
    return 2;
  }
  const scopes: Scope[] = asked.length > 0 ? normaliseScopes(asked) : [ADMIN];
  const { key, info } = await withRepositories((repos) =>
    repos.apiKeys.create(owner, { scopes, name: options.name ?? null }),
  );
  console.log(
    `Created API key ${info.id} for owner "${owner}" with scopes ${info.scopes.join(", ")}. ` +
      `It is shown only this once:\n\n${key}\n`,
  );
  return 0;
}

/** `skillrun keys list`: one line per key, never the secret. */
export async function keysList(): Promise<number> {
  const keys = await withRepositories((repos) => repos.apiKeys.list());
  if (keys.length === 0) {
    console.log("No API keys. Create one with: skillrun keys create --owner <owner>");
    return 0;
  }
  for (const k of keys) {
    const status = k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : "active";
    const name = k.name === null ? "" : `  "${k.name}"`;
    console.log(
      `${k.id}  ${k.owner}  ${k.prefix}…  ${k.scopes.join(",")}${name}  created ${k.createdAt.toISOString()}  ${status}`,
    );
  }
  return 0;
}

/** `skillrun keys revoke ID`. */
export async function keysRevoke(id: string): Promise<number> {
  const revoked = await withRepositories((repos) => repos.apiKeys.revoke(id));
  if (!revoked) {
    console.error(`skillrun: no active API key with id "${id}" (see skillrun keys list)`);
    return 1;
  }
  console.log(`Revoked API key ${id}.`);
  return 0;
}
