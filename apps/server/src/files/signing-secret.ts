import { randomBytes } from "node:crypto";
import { keptPrivateFile } from "../private-files.js";

const MIN_LENGTH = 32;

/**
 * The video signing secret kept in `file`: read when it exists, else generated (32 random bytes,
 * base64url) and written readable by this user only. Two servers starting at once agree on one.
 */
export function keptSigningSecret(file: string): string {
  const secret = keptPrivateFile(file, () => randomBytes(32).toString("base64url"));
  if (secret.length < MIN_LENGTH) {
    throw new Error(
      `${file} holds no usable video signing secret (under ${MIN_LENGTH} characters): delete it to have a new one made, or set VIDEO_SIGNING_SECRET`,
    );
  }
  return secret;
}
