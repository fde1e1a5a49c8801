import { v7 as uuidv7 } from "uuid";

/** Run ids are `run_` + a UUID v7, so they sort roughly by creation time. */
export function newRunId(): string {
  return `run_${uuidv7()}`;
}

export function newApiKeyId(): string {
  return `key_${uuidv7()}`;
}
