import { v7 as uuidv7 } from "uuid";

/** What every run id looks like (the version digit is not checked: ids made elsewhere may differ). */
export const RUN_ID_PATTERN = /^run_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Run ids are `run_` + a UUID v7, so they sort roughly by creation time. */
export function newRunId(): string {
  return `run_${uuidv7()}`;
}

export function newApiKeyId(): string {
  return `key_${uuidv7()}`;
}

/** What every uploaded file's id looks like: `file_` + a UUID. */
export const FILE_ID_PATTERN =
  /^file_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Uploaded files' ids are `file_` + a UUID v7, like runs'. */
export function newFileId(): string {
  return `file_${uuidv7()}`;
}

/** Webhook endpoints' ids are `wh_` + a UUID v7. */
export function newWebhookId(): string {
  return `wh_${uuidv7()}`;
}

/** Webhook deliveries' ids (the Standard Webhooks `webhook-id`) are `msg_` + a UUID v7. */
export function newDeliveryId(): string {
  return `msg_${uuidv7()}`;
}

/** Schedules' ids are `sch_` + a UUID v7. */
export function newScheduleId(): string {
  return `sch_${uuidv7()}`;
}
