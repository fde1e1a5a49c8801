import { withRepositories } from "./with-database.js";

/** `skillrun keys create --owner O`: prints the new key; it cannot be shown again. */
export async function keysCreate(owner: string): Promise<number> {
  const { key, info } = await withRepositories((repos) => repos.apiKeys.create(owner));
  console.log(
    `Created API key ${info.id} for owner "${owner}". It is shown only this once:\n\n${key}\n`,
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
    console.log(
      `${k.id}  ${k.owner}  ${k.prefix}…  created ${k.createdAt.toISOString()}  ${status}`,
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
