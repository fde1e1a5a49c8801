import { randomBytes } from "node:crypto";
import { linkSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { makePrivateDir, PRIVATE_FILE_MODE } from "../private-files.js";

const MIN_LENGTH = 32;

/**
 * The video signing secret kept in `file`: read when it exists, else generated (32 random bytes,
 * base64url) and written readable by this user only. Two servers starting at once agree on one.
 */
export function keptSigningSecret(file: string): string {
  makePrivateDir(dirname(file));
  const draft = `${file}.${process.pid}.tmp`;
  writeFileSync(draft, `${randomBytes(32).toString("base64url")}\n`, { mode: PRIVATE_FILE_MODE });
  try {
    // link() publishes the whole file at once and fails when one exists: the first writer wins.
    linkSync(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    rmSync(draft, { force: true });
  }
  const secret = readFileSync(file, "utf8").trim();
  if (secret.length < MIN_LENGTH) {
    throw new Error(
      `${file} holds no usable video signing secret (under ${MIN_LENGTH} characters): delete it to have a new one made, or set VIDEO_SIGNING_SECRET`,
    );
  }
  return secret;
}
