import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { SkillDefinition } from "@skillrun/engine";
import { localDataDir } from "../db/database-url.js";
import { paths } from "../paths.js";
import type { Repositories } from "../repositories.js";
import { importSkills } from "../skills/import-skills.js";
import { DEMO_TOTP_KEY } from "./backoffice-login.js";

export const DEMO_OWNER = "demo";

/** The demo owner's secret that holds the back office's one-time-code key. */
export const DEMO_OTP_SECRET = "backoffice_otp";

/**
 * The server's address with the default HOST and PORT. The example skills that use the server's
 * own pages (the demo shop) name it in their input defaults, so that they also work when imported
 * by hand for a server started with the defaults.
 */
export const DEFAULT_SERVER_URL = "http://127.0.0.1:8080";

/**
 * Prepares the demo of `skillrun serve --demo`, once the server listens at `serverUrl`: imports
 * skills/ for owner "demo", with input defaults that name the default server address pointed at
 * `serverUrl` instead, and returns an API key for the owner. The key is kept in a file beside the
 * database (readable by this user only) so that every start prints the same working key; only its
 * hash is in the database.
 */
export async function prepareDemo(
  repos: Repositories,
  databaseUrl: string,
  serverUrl: string,
): Promise<string> {
  await importSkills(repos.skills, DEMO_OWNER, paths.skills, (definition) =>
    followServerAddress(definition, serverUrl),
  );
  // The back office's second factor: its sign-in skill reads the key as secrets.backoffice_otp.
  await repos.secrets.put(DEMO_OWNER, DEMO_OTP_SECRET, DEMO_TOTP_KEY);
  const keyFile = join(localDataDir(databaseUrl), "demo-api-key");
  if (existsSync(keyFile)) {
    const kept = readFileSync(keyFile, "utf8").trim();
    if ((await repos.apiKeys.ownerOf(kept)) === DEMO_OWNER) return kept;
  }
  const { key } = await repos.apiKeys.create(DEMO_OWNER);
  mkdirSync(dirname(keyFile), { recursive: true });
  writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
  return key;
}

/**
 * The definition with every text input default that starts with DEFAULT_SERVER_URL rewritten to
 * start with `serverUrl`. A server listening on every interface (0.0.0.0, ::) is reached at
 * 127.0.0.1, as a browser on the same machine would.
 */
export function followServerAddress(
  definition: SkillDefinition,
  serverUrl: string,
): SkillDefinition {
  const address = new URL(serverUrl);
  if (address.hostname === "0.0.0.0" || address.hostname === "[::]") {
    address.hostname = "127.0.0.1";
  }
  const base = address.href.replace(/\/+$/, "");
  return {
    ...definition,
    inputs: definition.inputs.map((input) =>
      typeof input.default === "string" && namesDefaultServer(input.default)
        ? { ...input, default: base + input.default.slice(DEFAULT_SERVER_URL.length) }
        : input,
    ),
  };
}

function namesDefaultServer(text: string): boolean {
  if (!text.startsWith(DEFAULT_SERVER_URL)) return false;
  // The address itself, or a path on it; http://127.0.0.1:80800 is another server.
  const rest = text.slice(DEFAULT_SERVER_URL.length);
  return rest === "" || /^[/?#]/.test(rest);
}
