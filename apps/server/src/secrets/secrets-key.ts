import { randomBytes } from "node:crypto";
import { keptPrivateFile } from "../private-files.js";

/** AES-256 takes a 32-byte key. */
export const SECRETS_KEY_BYTES = 32;

const HEX_KEY = /^[0-9a-fA-F]{64}$/;
// 32 bytes in base64 or base64url: 43 characters, maybe one `=` of padding.
const BASE64_KEY = /^[A-Za-z0-9+/_-]{43}=?$/;

/** What a SECRETS_KEY must look like, for the messages that refuse one. */
export const SECRETS_KEY_FORMAT =
  "32 random bytes as base64 (44 characters, e.g. from `openssl rand -base64 32`) or as 64 hex digits";

/** The key a SECRETS_KEY text holds; throws (without quoting it) when it holds none. */
export function parseSecretsKey(text: string): Buffer {
  const trimmed = text.trim();
  if (HEX_KEY.test(trimmed)) return Buffer.from(trimmed, "hex");
  if (BASE64_KEY.test(trimmed)) {
    const key = Buffer.from(trimmed.replaceAll("-", "+").replaceAll("_", "/"), "base64");
    if (key.length === SECRETS_KEY_BYTES) return key;
  }
  throw new Error(`not a secrets key: expected ${SECRETS_KEY_FORMAT}`);
}

/**
 * The secrets key kept in `file`: read when it exists, else generated (32 random bytes, base64)
 * and written readable by this user only. Losing the file loses every secret stored under it.
 */
export function keptSecretsKey(file: string): Buffer {
  const text = keptPrivateFile(file, () => randomBytes(SECRETS_KEY_BYTES).toString("base64"));
  try {
    return parseSecretsKey(text);
  } catch {
    throw new Error(
      `${file} holds no usable secrets key (${SECRETS_KEY_FORMAT}): restore it from a backup, or set SECRETS_KEY to the key the secrets were stored with (a new key cannot read them)`,
    );
  }
}
